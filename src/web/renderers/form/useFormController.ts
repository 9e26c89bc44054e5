import type { IChangeEvent } from '@rjsf/core';
import type { ErrorSchema, RJSFValidationError, ValidatorType } from '@rjsf/utils';
import { createPrecompiledValidator, type ValidatorFunctions } from '@rjsf/validator-ajv8';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useLocation, useNavigate, useSearchParams } from 'react-router-dom';
import { ApiError, type OperationInput } from '../../../api/client';
import type { OperationId, ResponseData } from '../../../api/operations';
import { api } from '../../api';
import type { FormConfirm, FormLoad, FormOperation } from '../../config/types';
import { confirm, toast } from '../../feedback';
import { messages as t } from '../../i18n/zh-CN';
import { signedInMessages as w } from '../../i18n/zh-CN-signed-in';
import { useOperation } from '../../operations/useOperation';
import { cameFrom } from '../../state/history';
import { clearLoadedTitle, setLoadedTitle } from '../../state/screen-title';
import { createLocalizer } from './localize';
import type { ProblemReport } from './problems';
import { resolveForm, type AnyFormScreen, type ResolvedForm } from './resolve';
import { behaviours } from '../../app/behaviours';
import { ceremonies } from '../../app/ceremonies';

// The generic form's state, apart from its view (react-admin's useEditController beside its views): the validator,
// the record to edit, the values, the errors a server answer put on a field, and the submission through useOperation.

type Data = Record<string, unknown>;

const validators = new Map<string, Promise<ValidatorType>>();

/**
 * The form's precompiled validator, fetched once per operation (its own small chunk) and localized to Chinese; one
 * per way of showing its fields, since a widget's unit (yuan) changes the wording.
 */
function loadValidator(form: ResolvedForm): Promise<ValidatorType> {
  const key = `${form.operation} ${JSON.stringify(form.shown)} ${form.pickers.join(',')}`;
  let pending = validators.get(key);
  if (!pending) {
    pending = import(`../../../api/generated/validators/${form.operation}.gen.js`).then((fns: ValidatorFunctions) =>
      createPrecompiledValidator(
        fns,
        form.schema,
        createLocalizer(form.schema, form.patternMessages, form.shown, form.pickers),
      ),
    );
    // A failed download (offline, a deploy replaced the chunk) may succeed on retry.
    pending.catch(() => validators.delete(key));
    validators.set(key, pending);
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

/** The loaded record, reduced to the shown fields it has a value for (a settings form: those of its settings). */
function prefill(form: ResolvedForm, record: unknown): Data {
  if (record === null || typeof record !== 'object') return {};
  const source = (form.into ? (record as Data)[form.into] : record) as Data | null | undefined;
  if (!source || typeof source !== 'object') return {};
  return Object.fromEntries(
    form.fields
      .filter((name) => source[name] !== undefined && source[name] !== null)
      .map((name) => [name, source[name]]),
  );
}

/**
 * The fixed values (the record's id, read from the URL) that cannot name a record: absent, blank, not a number, or
 * below the contract's minimum. An edit form opened without its record says so instead of loading nothing.
 */
function missingFixed(form: ResolvedForm, fixed: Data): string[] {
  const properties = (form.schema.properties ?? {}) as Record<string, { type?: string; minimum?: number }>;
  return form.fixed.filter((name) => {
    const value = fixed[name];
    if (value === undefined || value === null || value === '') return true;
    const property = properties[name];
    if (property?.type !== 'integer' && property?.type !== 'number') return false;
    return (
      typeof value !== 'number' || Number.isNaN(value) || (property.minimum !== undefined && value < property.minimum)
    );
  });
}

/**
 * The screen's question before sending, worded from what the server says the submission touches: the fields to send
 * with the body once the user confirms (the question's `sets`; none when the screen asks nothing, or nothing for this
 * submission), or null when the user backs out. A failure to read it is told by the client and sends nothing.
 */
async function confirmed<L extends OperationId>(
  ask: FormConfirm<never, L> | undefined,
  body: Data,
): Promise<Data | null> {
  if (!ask) return {};
  if (!('operation' in ask)) {
    const own = ask.text(body as never);
    if (own === null) return {};
    return (await (ask.labels ? confirm(own, ask.labels) : confirm(own))) ? {} : null;
  }
  let data: ResponseData<L>;
  try {
    data = await api.call(ask.operation, { ...ask.args(body as never), quiet: false });
  } catch {
    return null;
  }
  const text = ask.text(body as never, data);
  if (text === null) return {};
  if (!(await (ask.labels ? confirm(text, ask.labels) : confirm(text)))) return null;
  return { ...(ask.sets as Data | undefined) };
}

// Generic in L, so the load's args and pick are those of its own operation.
async function readRecord<L extends OperationId>(
  load: FormLoad<never, L>,
  search: string,
  signal: AbortSignal,
): Promise<{ record: unknown; unavailable: Unavailable | null; title?: string; only?: readonly string[] | null }> {
  const data = await api.call(load.operation, { ...load.args(new URLSearchParams(search)), signal, quiet: true });
  return {
    record: load.pick ? load.pick(data) : data,
    unavailable: load.unavailable?.(data) ?? null,
    title: load.title?.(data),
    only: load.fields?.(data),
  };
}

/** The form with only the fields the record lets change (load.fields), or the whole form. */
function narrowTo(screen: AnyFormScreen, form: ResolvedForm, only: readonly string[] | null | undefined): ResolvedForm {
  if (!only) return form;
  const fields: readonly string[] = form.fields.filter((name) => only.includes(name));
  return resolveForm({ ...screen, fields } as AnyFormScreen);
}

type Unavailable = { title: string; description: string };

export type FormController =
  | { status: 'failed'; failure: string; retry: () => void }
  /** Opened without the record it edits (no id in the link): nothing to load or retry. */
  | { status: 'missing' }
  /** The record says it cannot be saved now (its platform is off shelf): the words instead of the form. */
  | ({ status: 'unavailable' } & Unavailable)
  | { status: 'loading' }
  | {
      status: 'ready';
      form: ResolvedForm;
      validator: ValidatorType;
      formData: Data;
      extraErrors: ErrorSchema;
      /**
       * The line-by-line problems of the last refused submission (a CSV's bad lines), and the field they show under
       * (none: above the submit button); null when there are none to show.
       */
      problems: (ProblemReport & { field?: string }) | null;
      /** Validate as the user types once a submit was tried. */
      submitted: boolean;
      submitting: boolean;
      submitLabel: string;
      onChange: (event: IChangeEvent<Data>) => void;
      /** Sets one field from outside the inputs (an accepted AI draft). */
      setField: (name: string, value: unknown) => void;
      onSubmit: (event: IChangeEvent<Data>) => Promise<void>;
      onError: (errors: RJSFValidationError[]) => void;
      /** Drops the errors of the field a ceremony fills on the device: it is empty until the form is sent. */
      transformErrors: (errors: RJSFValidationError[]) => RJSFValidationError[];
    };

/** The top-level field an rjsf error is about ('.credential.response' → 'credential'). */
const fieldOfError = (e: RJSFValidationError) =>
  String(e.property ?? '')
    .replace(/^\./, '')
    .split('.')[0] ?? '';

/**
 * `onDone`: what a hand screen does with the operation's answer (show the codes just generated, say) instead of the
 * screen's `after` navigation.
 */
export function useFormController(screen: AnyFormScreen, onDone?: (result: unknown) => void): FormController {
  const whole = useMemo(() => resolveForm(screen), [screen]);
  /** The fields the loaded record lets change, when fewer than the screen's (load.fields). */
  const [narrowed, setNarrowed] = useState<ResolvedForm | null>(null);
  const form = narrowed ?? whole;
  const [searchParams] = useSearchParams();
  const search = searchParams.toString();
  const fixed = useMemo(
    () => (screen.fixed as ((search: URLSearchParams) => Data) | undefined)?.(new URLSearchParams(search)) ?? {},
    [screen, search],
  );
  const missing = useMemo(() => missingFixed(whole, fixed).length > 0, [whole, fixed]);
  const navigate = useNavigate();
  const location = useLocation();
  const submission = useOperation(screen.submit as FormOperation);

  const [validator, setValidator] = useState<ValidatorType | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  const [formData, setFormData] = useState<Data | null>(null);
  const [extraErrors, setExtraErrors] = useState<ErrorSchema>({});
  const [problems, setProblems] = useState<ProblemReport | null>(null);
  const problemsField = screen.problems?.field as string | undefined;
  const [submitted, setSubmitted] = useState(false);
  const [beside, setBeside] = useState<Data>({});
  const [unavailable, setUnavailable] = useState<Unavailable | null>(null);

  // The validator and, for an edit form, the record to edit; the form shows once both are here.
  useEffect(() => {
    if (missing) return;
    const controller = new AbortController();
    setFailure(null);
    setFormData(null);
    const load = screen.load as FormLoad<never> | undefined;
    const record = load
      ? readRecord(load, search, controller.signal)
      : Promise.resolve({ record: {}, unavailable: null, title: undefined, only: null });
    // One validator for the whole body: a field left out by load.fields is neither shown nor sent, so never checked.
    Promise.all([loadValidator(whole), record]).then(
      ([v, { record: loaded, unavailable: closed, title, only }]) => {
        if (controller.signal.aborted) return;
        if (title !== undefined) setLoadedTitle(screen.path, title);
        setUnavailable(closed);
        const shown = narrowTo(screen, whole, only);
        setNarrowed(shown === whole ? null : shown);
        const values = prefill(shown, loaded);
        // A settings form sends its values as one body field; the load's other fields (the platform) go beside it.
        if (whole.into && loaded && typeof loaded === 'object') {
          setBeside(Object.fromEntries(Object.entries(loaded).filter(([name]) => name !== whole.into)));
        }
        setValidator(v);
        setFormData({ ...(load ? {} : ((screen.initial as Data | undefined) ?? {})), ...values, ...fixed });
      },
      (error: unknown) => {
        if (controller.signal.aborted) return;
        setFailure(error instanceof ApiError ? error.message : t.networkError);
      },
    );
    return () => controller.abort();
  }, [screen, whole, fixed, search, attempt, missing]);

  // A title read with the record is this visit's only.
  useEffect(() => () => clearLoadedTitle(screen.path), [screen.path]);

  const current = useRef<Data | null>(null);
  useEffect(() => {
    current.current = formData;
  }, [formData]);
  const onChange = useCallback(
    (event: IChangeEvent<Data>) => {
      const next = event.formData ?? {};
      const previous = current.current ?? {};
      // A server message about a field goes once the user edits that field.
      setExtraErrors((errors) => {
        const changed = Object.keys(errors).filter((name) => next[name] !== previous[name]);
        if (changed.length === 0) return errors;
        return Object.fromEntries(Object.entries(errors).filter(([name]) => !changed.includes(name)));
      });
      // The problems of a file go once another one is chosen (the field they are about changes).
      const touched = problemsField === undefined ? Object.keys(next) : [problemsField];
      if (touched.some((name) => next[name] !== previous[name])) setProblems(null);
      setFormData(next);
    },
    [problemsField],
  );
  const setField = useCallback(
    (name: string, value: unknown) => {
      setExtraErrors(({ [name]: _dropped, ...rest }) => rest);
      if (problemsField === undefined || problemsField === name) setProblems(null);
      setFormData((data) => ({ ...(data ?? {}), [name]: value }));
    },
    [problemsField],
  );

  const onError = useCallback(
    (errors: RJSFValidationError[]) => {
      setSubmitted(true);
      // Errors show by their fields; one on a field that is not shown (a fixed value from a bad link) needs a toast.
      const shown = new Set(form.fields);
      const hidden = errors.find((e) => !shown.has(fieldOfError(e)));
      if (hidden?.message) toast(hidden.message);
    },
    [form],
  );

  const { run } = submission;
  const onSubmit = useCallback(
    async ({ formData: values }: IChangeEvent<Data>) => {
      setSubmitted(true);
      setExtraErrors({});
      setProblems(null);
      // A 40000 answer that lists line-by-line problems is shown as that list; one that names a shown field goes on
      // that field; any other failure is a toast (useOperation).
      const onField = (error: ApiError) => {
        if (error.code === 40000 && error.problems.length > 0) {
          setProblems({ message: error.message, problems: error.problems });
          return true;
        }
        const field = error.code === 40000 ? fieldOfMessage(form, error.message) : undefined;
        if (field) setExtraErrors({ [field]: { __errors: [error.message] } } as ErrorSchema);
        return field !== undefined;
      };
      // The form was drawn and validated from this operation's own body schema: here its erased values meet the call.
      const body = form.into ? { ...beside, ...fixed, [form.into]: values } : { ...values, ...fixed };
      const confirmedWith = await confirmed(screen.confirm as FormConfirm<never> | undefined, body);
      if (confirmedWith === null) return;
      Object.assign(body, confirmedWith);
      if (screen.ceremony) {
        // The device's step (a passkey made on the phone) fills its field; cancelled there, nothing is sent.
        const filled = await ceremonies[screen.ceremony.run]();
        if (filled === null) return;
        body[screen.ceremony.fills] = filled;
      }
      const input = { body } as OperationInput<FormOperation>;
      const outcome = await run(input, { report: onField });
      if (!outcome.ok) return;
      toast(screen.done ?? w.form.done);
      // The frame (the site notice) and others learn of the change before the next page shows.
      if (screen.onSaved) await behaviours[screen.onSaved]();
      if (onDone) {
        onDone(outcome.data);
        return;
      }
      const after = typeof screen.after === 'function' ? screen.after(outcome.data as never) : screen.after;
      if (after === 'stay') return;
      if (after) {
        // Back to the page the admin came from when it is the one to show; otherwise it takes the form's place.
        if (location.key !== 'default' && cameFrom(after)) void navigate(-1);
        else void navigate(after, { replace: true });
      } else if (location.key !== 'default') void navigate(-1);
      // Opened by a link (nothing to go back to): the list the record belongs to, else home.
      else void navigate(screen.recordOf ?? '/', { replace: true });
    },
    [screen, form, fixed, beside, navigate, location.key, onDone, run],
  );

  if (missing) return { status: 'missing' };
  if (unavailable) return { status: 'unavailable', ...unavailable };
  if (failure) return { status: 'failed', failure, retry: () => setAttempt((n) => n + 1) };
  if (!validator || !formData) return { status: 'loading' };
  return {
    status: 'ready',
    form,
    validator,
    formData,
    extraErrors,
    problems: problems && { ...problems, ...(problemsField ? { field: problemsField } : {}) },
    submitted,
    submitting: submission.busy,
    submitLabel: screen.submitLabel ?? w.form.submit,
    onChange,
    setField,
    onSubmit,
    onError,
    transformErrors: (errors) =>
      form.ceremonyField ? errors.filter((e) => fieldOfError(e) !== form.ceremonyField) : errors,
  };
}
