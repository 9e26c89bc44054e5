import type { RJSFSchema, UiSchema } from '@rjsf/utils';
import { formPatternMessages, formSchemas, type FormSchemaId } from '../../../api/generated/forms.gen';
import { contractRules } from '../../../api/generated/rules.gen';
import type { FormOperation, FormScreen } from '../../config/types';
import { signedInMessages as w } from '../../i18n/zh-CN-signed-in';

// What a form screen renders, worked out from its config and the generated contract alone: a pure function, so the
// schema snapshot test sees exactly what the renderer uses.

// Every operation a screen may submit has a generated schema; a contract change that breaks this fails the type check.
type MissingSchema = Exclude<FormOperation, FormSchemaId>;
export const everyFormHasASchema: [MissingSchema] extends [never] ? true : MissingSchema = true;

/** A form screen of any operation, as the screen map holds them. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each form was checked by formScreen(); the renderer erases K
export type AnyFormScreen = FormScreen<any>;

export interface ResolvedForm {
  /** The schema drawn and validated: the operation's body, or the settings schema of a settings form. */
  operation: FormSchemaId;
  /** A settings form: the body field its values are sent as. */
  into?: string;
  /** The generated schema itself, untouched: the precompiled validator checks its root schema is this one. */
  schema: RJSFSchema;
  uiSchema: UiSchema;
  /** The fields shown, in order. */
  fields: string[];
  /** The fields filled from the URL (`fixed`): hidden, and merged into the submission. */
  fixed: string[];
  /** The field the screen's ceremony fills on the device: not drawn, and not the form's to validate. */
  ceremonyField?: string;
  /** The contract's wording for each field's pattern failure. */
  patternMessages: Readonly<Record<string, string>>;
  /**
   * Fields whose widget shows them in another unit than the contract (a price in fen typed in yuan): the title they
   * show and the factor from the shown unit to the contract's, so an error says 元 and its limits in yuan too.
   */
  shown: Readonly<Record<string, FieldDisplay>>;
  /** Fields picked rather than typed (chips, a time wheel, an expiry): left empty they say 请选择, not 请填写. */
  pickers: readonly string[];
}

export interface FieldDisplay {
  title: string;
  /** Contract units per shown unit (100 fen a yuan). */
  scale: number;
  /** What the field says for text that is not a value in its unit (abc as a price), in place of the contract type's. */
  invalid?: string;
}

/** Widgets with which a field is picked, not typed. */
const PICKER_WIDGETS: ReadonlySet<string> = new Set(['choices', 'time', 'platform', 'expiry']);

/** Widgets that show a field in another unit than the contract's, and how. */
const WIDGET_DISPLAY: Readonly<Record<string, (title: string) => FieldDisplay>> = {
  // Decimals are valid yuan (9.9), so "应为整数" (the contract's fen) would mislead: text that is no amount says so.
  yuan: (title) => ({ title: w.form.yuanTitle(title), scale: 100, invalid: w.form.yuanInvalid }),
};

interface PropertySchema {
  type?: string | string[];
  title?: string;
  writeOnly?: boolean;
  enum?: readonly unknown[];
  pattern?: string;
  properties?: Record<string, PropertySchema>;
  items?: PropertySchema;
}

/** A time of day as the contract writes it (TimeOfDay): such a field is picked on a wheel, never typed. */
const isTimeOfDay = (property: PropertySchema) =>
  property.type === 'string' && property.pattern === contractRules.TimeOfDay.pattern;

/**
 * The fields of an array's items (a platform's courses): a time picked on a wheel, text with a placeholder saying
 * what goes there, so an added row is not a set of blank boxes.
 */
function itemsUi(items: PropertySchema | undefined): Record<string, unknown> | undefined {
  if (!items?.properties) return undefined;
  return Object.fromEntries(
    Object.entries(items.properties).map(([name, property]) => [
      name,
      isTimeOfDay(property)
        ? { 'ui:widget': 'time' }
        : property.type === 'string' && !property.enum
          ? { 'ui:placeholder': w.form.placeholder(property.title ?? name) }
          : {},
    ]),
  );
}

function fieldUi(
  screen: AnyFormScreen,
  name: string,
  property: PropertySchema,
  textarea: boolean,
): Record<string, unknown> {
  const ui: Record<string, unknown> = {};
  const labels =
    (screen.enumLabels as Record<string, Record<string, string>> | undefined)?.[name] ?? w.form.enumLabels[name];
  const widget = (screen.widgets as Record<string, string> | undefined)?.[name];
  if (widget === 'yuan')
    return {
      'ui:widget': widget,
      'ui:title': WIDGET_DISPLAY.yuan!(property.title ?? name).title,
      'ui:placeholder': w.form.yuanPlaceholder,
    };
  if (widget === 'csvFile') return { 'ui:widget': widget, 'ui:placeholder': w.tasks.csvPlaceholder };
  // A secret the server never answers: masked, not filled in by the browser, blank keeps the saved one.
  if (widget === 'password')
    return { 'ui:widget': 'password', 'ui:placeholder': w.form.keepSecret, 'ui:autocomplete': 'off' };
  if (widget) return { 'ui:widget': widget };
  if (isTimeOfDay(property)) return { 'ui:widget': 'time' };
  const items = property.type === 'array' ? itemsUi(property.items) : undefined;
  if (items) return { items };
  // A list of enum values (a channel's 付款方式): several picked on chips, worded by the field's enum labels.
  const itemEnum = property.type === 'array' ? property.items?.enum : undefined;
  const choices =
    screen.choices?.[name] ??
    itemEnum?.map((v) => ({ value: v as string | number, label: labels?.[String(v)] ?? String(v) }));
  if (choices) return { 'ui:widget': 'choices', 'ui:options': { choices, multiple: property.type === 'array' } };
  if (property.enum) {
    if (labels)
      ui['ui:enumNames'] = Object.fromEntries(property.enum.map((v) => [String(v), labels[String(v)] ?? String(v)]));
    return ui;
  }
  if (property.type === 'boolean') return ui;
  ui['ui:placeholder'] =
    (screen.placeholders as Record<string, string> | undefined)?.[name] ?? w.form.placeholder(property.title ?? name);
  if (textarea) ui['ui:widget'] = 'textarea';
  else if (property.writeOnly && property.type === 'string') {
    ui['ui:widget'] = 'password';
    // Tells password managers which password this is: the one in use, or a new one to save.
    ui['ui:autocomplete'] = name === 'oldPassword' || name === 'password' ? 'current-password' : 'new-password';
  }
  return ui;
}

export function resolveForm(screen: AnyFormScreen): ResolvedForm {
  const operation = (screen.settings?.schema ?? screen.submit) as FormSchemaId;
  const schema = formSchemas[operation] as unknown as RJSFSchema;
  const properties = (schema.properties ?? {}) as Record<string, PropertySchema>;
  // `fixed` reads values from the URL; its keys do not depend on them.
  const fixedOf = screen.fixed as ((search: URLSearchParams) => object) | undefined;
  const fixed = Object.keys(fixedOf?.(new URLSearchParams()) ?? {});
  const fields: string[] = screen.fields
    ? [...screen.fields]
    : Object.keys(properties).filter((name) => !fixed.includes(name));
  const textareas: readonly string[] = screen.textareas ?? [];
  for (const name of [
    ...fields,
    ...textareas,
    ...fixed,
    ...Object.keys(screen.widgets ?? {}),
    ...Object.keys(screen.enumLabels ?? {}),
    ...Object.keys(screen.choices ?? {}),
    ...Object.keys(screen.placeholders ?? {}),
    ...(screen.problems ? [screen.problems.field as string] : []),
  ]) {
    if (!(name in properties)) throw new Error(`${screen.path}: ${operation} has no field ${name}`);
  }
  const uiSchema: UiSchema = { 'ui:order': [...fields, '*'] };
  const ceremonyField = screen.ceremony?.fills as string | undefined;
  for (const [name, property] of Object.entries(properties)) {
    uiSchema[name] = fields.includes(name)
      ? fieldUi(screen, name, property, textareas.includes(name))
      : name === ceremonyField
        ? { 'ui:field': 'byCeremony' } // filled on the device after the form (a passkey): nothing to draw
        : { 'ui:widget': 'hidden' };
  }
  const shown: Record<string, FieldDisplay> = {};
  const widgets: Readonly<Record<string, string>> = screen.widgets ?? {};
  for (const [name, widget] of Object.entries(widgets)) {
    const display = WIDGET_DISPLAY[widget];
    if (display && fields.includes(name)) shown[name] = display(properties[name]?.title ?? name);
  }
  const pickers = fields.filter((name) => {
    const ui = uiSchema[name] as { 'ui:widget'?: string; 'ui:placeholder'?: string } | undefined;
    return ui?.['ui:widget'] !== undefined
      ? PICKER_WIDGETS.has(ui['ui:widget'])
      : properties[name]?.enum !== undefined && !ui?.['ui:placeholder'];
  });
  return {
    operation,
    shown,
    pickers,
    ...(screen.settings ? { into: screen.settings.into } : {}),
    schema,
    uiSchema,
    fields,
    fixed,
    ...(ceremonyField ? { ceremonyField } : {}),
    patternMessages: formPatternMessages[operation],
  };
}
