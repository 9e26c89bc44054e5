import { Button, ErrorBlock } from 'antd-mobile';
import type { Experimental_DefaultFormStateBehavior } from '@rjsf/utils';
import { useMemo, type ReactNode } from 'react';
import type { FieldAction } from '../config/types';
import { Loading } from '../shell/Loading';
import { MissingRecord } from './MissingRecord';
import { FieldActionButton, FieldExtras, FormActions } from './form/actions';
import { FieldProblems, ProblemList } from './form/problems';
import { resolveForm, type AnyFormScreen, type ResolvedForm } from './form/resolve';
import { ThemedForm } from './form/theme';
import { useFormController } from './form/useFormController';
import { messages as t } from '../i18n/zh-CN';

// The generic form: a `kind: 'form'` screen of screens.config.ts rendered from its operation's request body schema,
// validated on the phone by the validator precompiled for that schema, and submitted to the operation. This view
// only draws what useFormController holds. This module and everything it pulls in (rjsf, the schemas, the
// validators) load only when a form screen opens.

export { resolveForm, type AnyFormScreen, type ResolvedForm };

/**
 * `onDone`: what a hand screen does with the operation's answer (show the codes just generated, say) instead of the
 * screen's `after` navigation.
 */
/**
 * A list of plain values (打卡日's weekdays, picked on chips) starts empty, not with one blank item to fill its
 * minItems: a blank item was an error no field shows, so an empty required list said nothing. Lists of rows (courses)
 * still start with their first row to fill in.
 */
const DEFAULTS: Experimental_DefaultFormStateBehavior = {
  arrayMinItems: {
    populate: 'all',
    computeSkipPopulate: (_validator, schema) => {
      const items = schema.items;
      return typeof items === 'object' && !Array.isArray(items) && items.type !== 'object' && !items.properties;
    },
  },
};

const NO_PROBLEMS = {};

export function FormRenderer({
  screen,
  onDone,
  idPrefix = 'root',
}: {
  screen: AnyFormScreen;
  onDone?: (result: unknown) => void;
  /** The fields' id prefix: forms sharing a page (the two of /coinChange) need their own, so each label names its input. */
  idPrefix?: string;
}) {
  const controller = useFormController(screen, onDone);
  const ready = controller.status === 'ready' ? controller : null;
  const formData = ready?.formData;
  const setField = ready?.setField;
  const fieldActions = screen.fieldActions as Readonly<Record<string, FieldAction>> | undefined;
  const extras = useMemo(() => {
    const out: Record<string, ReactNode> = {};
    if (!fieldActions || !setField) return out;
    for (const [name, action] of Object.entries(fieldActions)) {
      const value = formData?.[name];
      out[name] = (
        <FieldActionButton
          action={action}
          text={typeof value === 'string' ? value : ''}
          onAccept={(text) => setField(name, text)}
        />
      );
    }
    return out;
  }, [fieldActions, formData, setField]);
  if (controller.status === 'missing') return <MissingRecord listPath={screen.recordOf} purpose="edit" />;
  if (controller.status === 'unavailable') {
    return (
      <ErrorBlock
        status="empty"
        title={controller.title}
        description={controller.description}
        className="composed-unavailable"
      />
    );
  }
  if (controller.status === 'failed') {
    return (
      <ErrorBlock
        status="default"
        title={t.shell.loadFailed}
        description={controller.failure}
        style={{ padding: '48px 0' }}
      >
        <Button color="primary" onClick={controller.retry}>
          {t.shell.retry}
        </Button>
      </ErrorBlock>
    );
  }
  if (controller.status === 'loading') return <Loading />;
  const { form, submitting, submitLabel, problems } = controller;
  // A refused file's problems go under their field when it is shown, else above the submit button.
  const problemsField = problems?.field !== undefined && form.fields.includes(problems.field) ? problems.field : null;
  const problemList = problems ? <ProblemList report={problems} /> : null;
  return (
    <FieldExtras.Provider value={extras}>
      {screen.intro ? (
        <section className="form-intro">
          {screen.intro.map((p) => (
            <p key={p}>{p}</p>
          ))}
        </section>
      ) : null}
      <FieldProblems.Provider value={problemsField ? { [problemsField]: problemList } : NO_PROBLEMS}>
        <ThemedForm
          schema={form.schema}
          uiSchema={form.uiSchema}
          validator={controller.validator}
          formData={controller.formData}
          onChange={controller.onChange}
          onSubmit={controller.onSubmit}
          onError={controller.onError}
          transformErrors={controller.transformErrors}
          extraErrors={controller.extraErrors}
          showErrorList={false}
          idPrefix={idPrefix}
          experimental_defaultFormStateBehavior={DEFAULTS}
          liveValidate={controller.submitted ? 'onChange' : false}
          noHtml5Validate
          focusOnFirstError
          disabled={submitting}
        >
          {problemList && !problemsField ? <div style={{ padding: '0 12px' }}>{problemList}</div> : null}
          <div style={{ padding: '16px 12px' }}>
            <Button
              block
              color="primary"
              type="submit"
              loading={submitting}
              loadingText={submitLabel}
              disabled={submitting}
            >
              {submitLabel}
            </Button>
          </div>
          {screen.actions ? <FormActions actions={screen.actions} disabled={submitting} /> : null}
        </ThemedForm>
      </FieldProblems.Provider>
    </FieldExtras.Provider>
  );
}
