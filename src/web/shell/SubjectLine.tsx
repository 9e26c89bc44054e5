import { useEffect, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import type { OperationId } from '../../api/operations';
import { api } from '../api';
import type { Subject } from '../config/types';
import './subject-line.css';

// Generic in K, so the subject's args and text are those of its own operation.
function read<K extends OperationId>(subject: Subject<K>, search: URLSearchParams, signal: AbortSignal) {
  const args = subject.args(search);
  if (!args) return null;
  return api.call(subject.operation, { ...args, signal, quiet: true }).then((data) => subject.text(data));
}

/**
 * Whose record the screen is about (`subject` in the screen map), under the header: read from the server by the
 * URL's id, so the line names the account the screen really acts on. Nothing shows while it loads or if it fails
 * (the screen itself reports a bad id).
 */
export function SubjectLine({ subject }: { subject: Subject }) {
  const [params] = useSearchParams();
  const search = params.toString();
  const [text, setText] = useState<string | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    setText(null);
    read(subject, new URLSearchParams(search), controller.signal)?.then(
      (line) => !controller.signal.aborted && setText(line),
      () => undefined,
    );
    return () => controller.abort();
  }, [subject, search]);
  return text ? (
    <p className="app-subject" role="status">
      {text}
    </p>
  ) : null;
}
