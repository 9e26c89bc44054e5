import type { FieldTemplateProps, ObjectFieldTemplateProps, TemplatesType } from '@rjsf/utils';
import { List } from 'antd-mobile';
import { useFieldExtra } from './actions';
import { useFieldProblems } from './problems';

// The templates of the antd-mobile theme: the form is one antd-mobile List, each field a List.Item with its title as
// the label, a red mark when required and its first error in red under the input. No error list at the top: every
// message stands by the field it is about.

const danger = { color: 'var(--adm-color-danger)' } as const;

function FieldError({ id, message }: { id: string; message: string | undefined }) {
  if (!message) return null;
  return (
    <span id={`${id}__error`} role="alert" style={danger}>
      {message}
    </span>
  );
}

function FieldTemplate(props: FieldTemplateProps) {
  const { id, label, children, hidden, required, rawErrors, schema } = props;
  // rjsf names a top-level field's id root_<name>; a screen's field action (AI 润色) sits beside its label.
  const extra = useFieldExtra(id.replace(/^root_/, ''));
  // A refused file's line-by-line problems (problems.tsx) under the field they are about.
  const problems = useFieldProblems(id.replace(/^root_/, ''));
  if (hidden) return null;
  const error = rawErrors?.[0];
  // The form itself (the root object): its fields, then an error about the whole body if there is one.
  if (schema.type === 'object') {
    return (
      <>
        {children}
        {error ? (
          <div style={{ padding: '8px 12px' }}>
            <FieldError id={id} message={error} />
          </div>
        ) : null}
      </>
    );
  }
  return (
    <List.Item
      title={
        <span style={{ display: 'flex', alignItems: 'center' }}>
          <label htmlFor={id}>{label}</label>
          {required ? (
            <span style={danger} aria-hidden="true">
              {' *'}
            </span>
          ) : null}
          {extra ? <span style={{ marginLeft: 'auto' }}>{extra}</span> : null}
        </span>
      }
      description={
        error || problems ? (
          <>
            {error ? <FieldError id={id} message={error} /> : null}
            {problems}
          </>
        ) : undefined
      }
    >
      {children}
    </List.Item>
  );
}

function ObjectFieldTemplate({ properties }: ObjectFieldTemplateProps) {
  return <List>{properties.filter((p) => !p.hidden).map((p) => p.content)}</List>;
}

/** Errors show by their fields (FieldTemplate), never as a list or a second time under the input. */
const Nothing = () => null;

export const templates: Partial<Omit<TemplatesType, 'ButtonTemplates'>> = {
  FieldTemplate,
  ObjectFieldTemplate,
  ErrorListTemplate: Nothing,
  FieldErrorTemplate: Nothing,
};
