import { useCallback, useRef, useState } from 'react';
import { ApiError, newIdempotencyKey, type CallInit, type OperationInput } from '../../api/client';
import type { OperationId, ResponseData } from '../../api/operations';
import { OPERATIONS } from '../../api/generated/operations.gen';
import { api } from '../api';
import { toast } from '../feedback';
import { messages as t } from '../i18n/zh-CN';

/** What a run ended with: the operation's data, or a failure the user has already been told about. */
export type Outcome<T> = { ok: true; data: T } | { ok: false };

export interface RunOptions {
  /**
   * Takes a failure before the toast: answer true when the screen showed it itself (on a form field, say). A failure
   * the client already showed (sign in again) or a cancelled call never reaches it.
   */
  report?: (error: ApiError) => boolean;
  /** Overrides the contract's `idempotent` for this operation (see useOperation). */
  idempotent?: boolean;
}

/** Tells the user about a failure, unless the client already did (sign in again) or it was a cancelled call. */
export function reportFailure(error: unknown, report?: RunOptions['report']): void {
  if (!(error instanceof ApiError)) {
    toast(t.networkError);
    return;
  }
  if (error.shown || error.kind === 'aborted') return;
  if (report?.(error)) return;
  toast(error.message);
}

/**
 * Calls operations and handles the answers: busy state (a second run while one is in flight sends nothing), the
 * failure toast, and the idempotency policy. For an operation that moves coins (`idempotent`, from the contract by
 * default) one Idempotency-Key stands for one user intent: a retry of the same request after a failure (a lost
 * answer) sends the same key, so the server moves nothing twice; a success, or a request that differs, starts a new
 * intent with a new key. The server records nothing for a refused attempt, so keeping the key then is safe.
 *
 * This form takes the operation per run (a list's row actions); screens with one operation use `useOperation`.
 */
export function useOperationRunner() {
  const [busy, setBusy] = useState(false);
  const inFlight = useRef(false);
  const intent = useRef<{ request: string; key: string } | null>(null);

  const run = useCallback(
    async <K extends OperationId>(
      operationId: K,
      input: OperationInput<K>,
      options: RunOptions = {},
    ): Promise<Outcome<ResponseData<K>>> => {
      if (inFlight.current) return { ok: false };
      inFlight.current = true;
      setBusy(true);
      const init: CallInit<K> = { ...input, quiet: true };
      if (options.idempotent ?? OPERATIONS[operationId].idempotent) {
        const request = JSON.stringify([operationId, input.query, input.body]);
        if (intent.current?.request !== request) intent.current = { request, key: newIdempotencyKey() };
        init.idempotencyKey = intent.current.key;
      }
      try {
        const data = await api.call(operationId, init);
        intent.current = null;
        return { ok: true, data };
      } catch (error) {
        reportFailure(error, options.report);
        return { ok: false };
      } finally {
        inFlight.current = false;
        setBusy(false);
      }
    },
    [],
  );

  return { run, busy };
}

/** `useOperationRunner` bound to one operation: `run(input)` calls it. */
export function useOperation<K extends OperationId>(operationId: K, options: { idempotent?: boolean } = {}) {
  const { run: runAny, busy } = useOperationRunner();
  const { idempotent } = options;
  const run = useCallback(
    (input: OperationInput<K>, runOptions: RunOptions = {}) =>
      runAny(operationId, input, { idempotent, ...runOptions }),
    [runAny, operationId, idempotent],
  );
  return { run, busy };
}
