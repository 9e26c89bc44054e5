import type { IChangeEvent } from '@rjsf/core';
import type { ErrorSchema, RJSFValidationError, ValidatorType } from '@rjsf/utils';
import { createPrecompiledValidator, type ValidatorFunctions } from '@rjsf/validator-ajv8';
import { Button, ErrorBlock } from 'antd-mobile';
import { toast } from '../feedback';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useLocation, useNavigate, useSearchParams } from 'react-router-dom';
import { ApiError, newIdempotencyKey } from '../../api/client';
import { OPERATIONS } from '../../api/generated/operations.gen';
import type { FormOperation } from '../config/types';
import type { OperationId } from '../../api/operations';
import { api } from '../api';
import { messages as t } from '../i18n/zh-CN';
import { Loading } from '../shell/Loading';
import { createLocalizer } from './form/localize';
import { resolveForm, type AnyFormScreen, type ResolvedForm } from './form/resolve';
import { ThemedForm } from './form/theme';

// The generic form: a `kind: 'form'` screen of screens.config.ts rendered from its operation's request body schema,
// validated on the phone by the validator precompiled for that schema, and submitted to the operation. This module
// and everything it pulls in (rjsf, the schemas, the validators) load only when a form screen opens.

export { resolveForm, type AnyFormScreen, type ResolvedForm };

type Data = Record<string, unknown>;

/** Codes the API client already answers with a toast and the way to /login. */
const SIGN_IN_AGAIN = new Set([40001, 40100]);

const validators = new Map<string, Promise<ValidatorType>>();

/** The form's precompiled validator, fetched once per operation (its own small chunk) and localized to Chinese. */
function loadValidator(form: ResolvedForm): Promise<ValidatorType> {
  let pending = validators.get(form.operation);
  if (!pending) {
    pending = import(`../../api/generated/validators/${form.operation}.gen.js`).then((fns: ValidatorFunctions) =>
      createPrecompiledValidator(fns, form.schema, createLocalizer(form.schema, form.patternMessages)),
    );
    // A failed download (offline, a deploy replaced the chunk) may succeed on retry.
    pending.catch(() => validators.delete(form.operation));
    validators.set(form.operation, pending);
  }
  return pending;
}

/** The field a server message is about: the shown field whose title the message starts with (longest title first). */
function fieldOfMessage(form: ResolvedForm, message: string): string | undefined {
  const properties = (form.schema.properties ?? {}) as Record<string, { title?: string }>;
  return form.fields
    .map((name) => ({ name, title: properties[name]?.title ?? '' }))
    .filter(({ title }) => title !== '' && message.startsWith(title))
    .sort((a, b) => b.title.length - a.title.length)[0]?.name;
}

/** The loaded record, reduced to the shown fields it has a value for. */
function prefill(form: ResolvedForm, record: unknown): Data {
  if (record === null || typeof record !== 'object') return {};
  const source = record as Data;
  return Object.fromEntries(form.fields.filter((name) => source[name] !== undefined && source[name] !== null).map((name) => [name, source[name]]));
}


/**
 * `onDone`: what a hand screen does with the operation's answer (show the codes just generated, say) instead of the
 * screen's `after` navigation.
 */
export function FormRenderer({ screen, onDone }: { screen: AnyFormScreen; onDone?: (result: unknown) => void }) {
  const form = useMemo(() => resolveForm(screen), [screen]);
  const [searchParams] = useSearchParams();
  const search = searchParams.toString();
  const fixed = useMemo(() => (screen.fixed?.(new URLSearchParams(search)) ?? {}) as Data, [screen, search]);
  const navigate = useNavigate();
  const location = useLocation();

  const [validator, setValidator] = useState<ValidatorType | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  const [formData, setFormData] = useState<Data | null>(null);
  const [extraErrors, setExtraErrors] = useState<ErrorSchema>({});
  const [submitted, setSubmitted] = useState(false);
  const [submitting, setSubmitting] = useState(false);
  const inFlight = useRef(false);

  // The validator and, for an edit form, the record to edit; the form shows once both are here.
  useEffect(() => {
    const controller = new AbortController();
    setFailure(null);
    setFormData(null);
    const load = screen.load;
    const record: Promise<Data> = load
      ? api
          .call(load.operation as OperationId, { ...(load.args(new URLSearchParams(search)) as object), signal: controller.signal, quiet: true } as never)
          .then((data) => prefill(form, load.pick ? load.pick(data) : data))
      : Promise.resolve({});
    Promise.all([loadValidator(form), record]).then(
      ([v, values]) => {
        if (controller.signal.aborted) return;
        setValidator(v);
        setFormData({ ...(load ? {} : ((screen.initial ?? {}) as Data)), ...values, ...fixed });
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        setFailure(error instanceof ApiError ? error.message : t.networkError);
      },
    );
    return () => controller.abort();
  }, [screen, form, fixed, search, attempt]);

  const current = useRef<Data | null>(null);
  current.current = formData;
  // One Idempotency-Key per attempt: sending the same values again (after a lost answer) reuses it, so a coin movement
  // happens once; changed values, or a success, start a new attempt.
  const attemptKey = useRef(newIdempotencyKey());
  const onChange = useCallback((event: IChangeEvent<Data>) => {
    const next = event.formData ?? {};
    const previous = current.current ?? {};
    if (Object.keys({ ...previous, ...next }).some((name) => next[name] !== previous[name])) attemptKey.current = newIdempotencyKey();
    // A server message about a field goes once the user edits that field.
    setExtraErrors((errors) => {
      const changed = Object.keys(errors).filter((name) => next[name] !== previous[name]);
      if (changed.length === 0) return errors;
      const rest: Record<string, unknown> = { ...errors };
      for (const name of changed) delete rest[name];
      return rest as ErrorSchema;
    });
    setFormData(next);
  }, []);

  const onError = useCallback(
    (errors: RJSFValidationError[]) => {
      setSubmitted(true);
      // Errors show by their fields; one on a field that is not shown (a fixed value from a bad link) needs a toast.
      const shown = new Set(form.fields);
      const hidden = errors.find((e) => !shown.has(String(e.property ?? '').replace(/^\./, '').split('.')[0] ?? ''));
      if (hidden?.message) toast(hidden.message);
    },
    [form],
  );

  const onSubmit = useCallback(
    async ({ formData: values }: IChangeEvent<Data>) => {
      setSubmitted(true);
      if (inFlight.current) return;
      inFlight.current = true;
      setSubmitting(true);
      setExtraErrors({});
      try {
        const key = OPERATIONS[screen.submit as FormOperation].idempotent ? { idempotencyKey: attemptKey.current } : {};
        const result: unknown = await api.call(screen.submit, { body: { ...values, ...fixed }, quiet: true, ...key } as never);
        attemptKey.current = newIdempotencyKey();
        toast(screen.done ?? t.form.done);
        if (onDone) onDone(result);
        else if (screen.after) navigate(screen.after);
        else if (location.key !== 'default') navigate(-1);
        else navigate('/', { replace: true });
      } catch (error) {
        if (!(error instanceof ApiError)) toast(t.networkError);
        else if (error.kind === 'aborted' || SIGN_IN_AGAIN.has(error.code ?? 0)) return;
        else {
          const field = error.code === 40000 ? fieldOfMessage(form, error.message) : undefined;
          if (field) setExtraErrors({ [field]: { __errors: [error.message] } } as ErrorSchema);
          else toast(error.message);
        }
      } finally {
        inFlight.current = false;
        setSubmitting(false);
      }
    },
    [screen, form, fixed, navigate, location.key, onDone],
  );

  const submitLabel = screen.submitLabel ?? t.form.submit;
  if (failure) {
    return (
      <ErrorBlock status="default" title={t.shell.loadFailed} description={failure} style={{ padding: '48px 0' }}>
        <Button color="primary" onClick={() => setAttempt((n) => n + 1)}>
          {t.shell.retry}
        </Button>
      </ErrorBlock>
    );
  }
  if (!validator || !formData) return <Loading />;

  return (
    <ThemedForm
      schema={form.schema}
      uiSchema={form.uiSchema}
      validator={validator}
      formData={formData}
      onChange={onChange}
      onSubmit={onSubmit}
      onError={onError}
      extraErrors={extraErrors}
      showErrorList={false}
      liveValidate={submitted ? 'onChange' : false}
      noHtml5Validate
      focusOnFirstError
      disabled={submitting}
    >
      <div style={{ padding: '16px 12px' }}>
        <Button block color="primary" type="submit" loading={submitting} loadingText={submitLabel} disabled={submitting}>
          {submitLabel}
        </Button>
      </div>
    </ThemedForm>
  );
}
