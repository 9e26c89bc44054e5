import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { Button, Dialog } from 'antd-mobile';
import { messages as t } from '../i18n/zh-CN';
import './choice-dialog.css';

/** What the dialog shows after its call: the failure next to the choice, the way out, or nothing (it closes). */
export type ChoiceOutcome = { error: string } | { leaving: string | null } | { done: true };

export interface ChoiceDialogProps<V> {
  title: string;
  /** Lines under the title saying what the dialog is about (a package, its price and coins). */
  lines?: readonly ReactNode[];
  /** What the choices are of (付款方式). */
  legend?: string;
  /**
   * The values to pick from, the first picked to begin with; null while they are read. Left out: nothing to pick, the
   * dialog is a question whose answer is sent from it (its failure shown in it too).
   */
  choices?: readonly { label: string; value: V }[] | null;
  /** The choices could not be read: said where they would be, with a retry. */
  loadFailed?: { message: string; retry: () => void } | null;
  /** Said instead of the choices when there are none (what to do then); the button then stays off. */
  empty?: string;
  /** A line under the choices (when an unpaid order closes, how to pay). */
  note?: ReactNode;
  ok: string;
  /** What the button says while the call (and then the leaving) is under way. */
  busy: string;
  cancel?: string;
  /** Sends the choice (undefined when there is nothing to pick) and says what comes next. */
  onOk: (value: V | undefined) => Promise<ChoiceOutcome>;
  /** The user backed out (取消), as they tap it: a way out still pending is dropped. */
  onCancel?: () => void;
  /** After the dialog has closed (cancelled, or done). */
  onClose: () => void;
}

/**
 * A dialog that asks, lets the user pick one of a few values (a payment method), and sends: one request at a time
 * (the button says it is under way and takes no second tap), a failure in the dialog under the choice that caused it
 * (the user picks another or tries again), and a way out that keeps the wait visible while the phone leaves the app
 * (to a payment cashier). Coming back to the page from there (the browser's back) makes it answer taps again.
 */
export function ChoiceDialog<V>({
  title,
  lines = [],
  legend,
  choices,
  loadFailed,
  empty,
  note,
  ok,
  busy,
  cancel = t.shell.cancel,
  onOk,
  onCancel,
  onClose,
}: ChoiceDialogProps<V>) {
  const [open, setOpen] = useState(true);
  const [picked, setPicked] = useState(0);
  const [phase, setPhase] = useState<'idle' | 'sending' | 'leaving'>('idle');
  const [error, setError] = useState<string | null>(null);
  const [info, setInfo] = useState<string | null>(null);
  const sending = useRef(false);
  const legendId = useId();

  // Back from the cashier with the browser's back button, the page may come out of the back-forward cache as it was
  // left: waiting. It answers taps again (the order is still there to pay).
  useEffect(() => {
    const back = (event: PageTransitionEvent) => {
      if (!event.persisted) return;
      sending.current = false;
      setPhase('idle');
      setInfo(null);
    };
    window.addEventListener('pageshow', back);
    return () => window.removeEventListener('pageshow', back);
  }, []);

  const picking = choices !== undefined;
  const ready = !picking || (choices !== null && choices.length > 0);
  const submit = async () => {
    if (sending.current || !ready) return;
    sending.current = true;
    setPhase('sending');
    setError(null);
    setInfo(null);
    const choice = choices ? choices[picked] : undefined;
    const outcome = await onOk(choice?.value);
    if ('error' in outcome) {
      sending.current = false;
      setPhase('idle');
      setError(outcome.error);
    } else if ('leaving' in outcome) {
      setPhase('leaving');
      setInfo(outcome.leaving);
    } else {
      sending.current = false;
      setPhase('idle');
      setOpen(false);
    }
  };

  const waiting = phase !== 'idle';
  return (
    <Dialog
      visible={open}
      title={title}
      aria-label={title}
      afterClose={onClose}
      bodyClassName="choice-dialog"
      content={
        <div className="choice-content">
          {lines.map((line, i) => (
            <p key={i} className="choice-line">
              {line}
            </p>
          ))}
          {picking && (
            <fieldset className="choice-set" aria-labelledby={legendId} disabled={waiting}>
              {legend && (
                <legend id={legendId} className="choice-legend">
                  {legend}
                </legend>
              )}
              {loadFailed ? (
                <div className="choice-failed" role="alert">
                  <span>{loadFailed.message}</span>
                  <Button size="small" onClick={loadFailed.retry}>
                    {t.shell.retry}
                  </Button>
                </div>
              ) : choices === null ? (
                <p className="choice-hint" aria-busy="true">
                  {t.shell.loading}
                </p>
              ) : choices.length === 0 ? (
                <p className="choice-hint">{empty}</p>
              ) : (
                // The browser's own radio buttons (antd-mobile's hide theirs from keyboards and screen readers).
                choices.map((choice, i) => (
                  <label key={i} className="choice-option">
                    <input type="radio" name={legendId} checked={picked === i} onChange={() => setPicked(i)} />
                    <span>{choice.label}</span>
                  </label>
                ))
              )}
            </fieldset>
          )}
          {note && <div className="choice-note">{note}</div>}
          {error && (
            <p className="choice-error" role="alert">
              {error}
            </p>
          )}
          {info && (
            <p className="choice-info" role="status">
              {info}
            </p>
          )}
          <div className="choice-buttons">
            <Button
              className="choice-ok"
              color="primary"
              block
              disabled={!ready && !waiting}
              loading={waiting}
              loadingText={busy}
              onClick={() => void submit()}
            >
              {ok}
            </Button>
            <Button
              className="choice-cancel"
              block
              disabled={phase === 'sending'}
              onClick={() => {
                sending.current = false;
                setPhase('idle');
                setOpen(false);
                onCancel?.();
              }}
            >
              {cancel}
            </Button>
          </div>
        </div>
      }
    />
  );
}
