import { ProgressBar } from 'antd-mobile';
import type { Progress } from '../config/types';
import { signedInMessages as w } from '../i18n/zh-CN-signed-in';

/** A job's progress: the bar fills with done and failed items out of the total; the words say both counts. */
export function ProgressLine({ done, failed, total }: Progress) {
  const percent = total > 0 ? Math.min(100, Math.round(((done + failed) * 100) / total)) : 100;
  return (
    <div
      className="progress-line"
      role="progressbar"
      aria-label={w.tasks.progressLabel}
      aria-valuemin={0}
      aria-valuemax={total}
      aria-valuenow={done + failed}
      aria-valuetext={w.tasks.progress(done, failed, total)}
    >
      <ProgressBar
        percent={percent}
        style={{ '--fill-color': failed > 0 ? 'var(--adm-color-warning)' : 'var(--adm-color-primary)' }}
      />
      <span className="progress-line-text">{w.tasks.progress(done, failed, total)}</span>
    </div>
  );
}
