import { useEffect, useState } from 'react';
import type { RegistryWidgetsType, WidgetProps } from '@rjsf/utils';
import { Input, Selector, Switch, TextArea } from 'antd-mobile';
import { signedInMessages as w } from '../../i18n/zh-CN-signed-in';
import { PlatformWidget } from './PlatformWidget';
import { TimeWidget } from './TimeWidget';

// The widget registry of the antd-mobile theme: each rjsf widget name mapped once to an antd-mobile input. Values
// leave the widgets as rjsf expects them: '' becomes the field's empty value (absent), numbers leave as text and
// rjsf's NumberField turns them into numbers.

const emptyAs = (props: WidgetProps, value: string): unknown => (value === '' ? props.options.emptyValue : value);

const isNumeric = (props: WidgetProps) => props.schema.type === 'integer' || props.schema.type === 'number';

function inputProps(props: WidgetProps) {
  // No aria-* here: antd-mobile puts them on its wrapper, not on the input. The error itself is a role="alert".
  const { id, htmlName, name, disabled, readonly, autofocus, placeholder } = props;
  return {
    id,
    name: htmlName ?? name,
    disabled: disabled || readonly,
    autoFocus: autofocus,
    placeholder,
    onBlur: () => props.onBlur(id, props.value),
    onFocus: () => props.onFocus(id, props.value),
  };
}

function TextInput(props: WidgetProps & { type?: 'text' | 'password' | 'email' | 'url' | 'number' }) {
  const numeric = props.type === 'number' || isNumeric(props);
  const autoComplete = props.options.autocomplete as string | undefined;
  return (
    <Input
      {...inputProps(props)}
      type={numeric ? 'number' : (props.type ?? 'text')}
      inputMode={numeric ? (props.schema.type === 'integer' ? 'numeric' : 'decimal') : undefined}
      autoComplete={autoComplete ?? (props.type === 'password' ? 'new-password' : undefined)}
      value={props.value === undefined || props.value === null ? '' : String(props.value)}
      onChange={(value) => props.onChange(emptyAs(props, value))}
      // No clear button: antd-mobile's is a 23 px div with an aria-label and no role (axe: aria-prohibited-attr), too
      // small to tap and unnamed to a screen reader; the keyboard's delete does the job.
      clearable={false}
    />
  );
}

const TextWidget = (props: WidgetProps) => <TextInput {...props} />;
const PasswordWidget = (props: WidgetProps) => <TextInput {...props} type="password" />;
const EmailWidget = (props: WidgetProps) => <TextInput {...props} type="email" />;
const URLWidget = (props: WidgetProps) => <TextInput {...props} type="url" />;
const UpDownWidget = (props: WidgetProps) => <TextInput {...props} type="number" />;

function TextareaWidget(props: WidgetProps) {
  return (
    <TextArea
      {...inputProps(props)}
      autoSize={{ minRows: 3, maxRows: 10 }}
      value={props.value === undefined || props.value === null ? '' : String(props.value)}
      onChange={(value) => props.onChange(emptyAs(props, value))}
    />
  );
}

/** One choice among the enum's values, as tappable chips (`select` and `radio` alike: a phone has room for both). */
function SelectWidget(props: WidgetProps) {
  const options = (props.options.enumOptions ?? []).map((o) => ({ label: o.label, value: o.value as string | number }));
  return (
    <div id={props.id}>
      <Selector
        options={options}
        value={props.value === undefined || props.value === null ? [] : [props.value as string | number]}
        disabled={props.disabled || props.readonly}
        onChange={(values) => props.onChange(values[0] ?? props.options.emptyValue)}
      />
    </div>
  );
}

/**
 * A field picked from fixed values the screen map gives (`ui:widget: 'choices'`): one value, or several for an array
 * field (kept in the order of the choices, so Monday comes before Friday whatever order they were tapped in).
 */
function ChoicesWidget(props: WidgetProps) {
  const choices = (props.options.choices ?? []) as readonly { value: string | number; label: string }[];
  const multiple = props.options.multiple === true;
  const picked: (string | number)[] = Array.isArray(props.value)
    ? (props.value as (string | number)[])
    : props.value === undefined || props.value === null
      ? []
      : [props.value as string | number];
  return (
    <div id={props.id}>
      <Selector
        options={choices.map((c) => ({ label: c.label, value: c.value }))}
        multiple={multiple}
        value={picked}
        disabled={props.disabled || props.readonly}
        onChange={(values) => {
          if (!multiple) {
            props.onChange(values[0] ?? props.options.emptyValue);
            return;
          }
          const ordered = choices.map((c) => c.value).filter((v) => values.includes(v));
          props.onChange(ordered.length > 0 ? ordered : undefined);
        }}
      />
    </div>
  );
}

function CheckboxWidget(props: WidgetProps) {
  return (
    <Switch
      checked={props.value === true}
      disabled={props.disabled || props.readonly}
      onChange={(checked) => props.onChange(checked)}
      aria-label={props.label}
    />
  );
}

/** The last moment of the day `days` days from now, in the phone's time zone: a code valid for 7 days lasts the 7th day. */
export function expiryAfterDays(days: number, now = new Date()): number {
  const end = new Date(now);
  end.setDate(end.getDate() + days);
  end.setHours(23, 59, 59, 0);
  return end.getTime();
}

const EXPIRY_DAYS = [7, 30, 90, 180, 365];

/** A timestamp field as a choice of days from today (`ui:widget: 'expiry'`), with the resulting date under it. */
function ExpiryWidget(props: WidgetProps) {
  const value = typeof props.value === 'number' ? props.value : undefined;
  const chosen = EXPIRY_DAYS.find((days) => value === expiryAfterDays(days));
  return (
    <div id={props.id}>
      <Selector
        options={EXPIRY_DAYS.map((days) => ({ label: w.redeem.expiresIn(days), value: days }))}
        value={chosen === undefined ? [] : [chosen]}
        disabled={props.disabled || props.readonly}
        onChange={(values) =>
          props.onChange(values[0] === undefined ? props.options.emptyValue : expiryAfterDays(values[0]))
        }
      />
      <div style={{ marginTop: 6, fontSize: 13, color: 'var(--adm-color-weak)' }}>
        {value === undefined ? w.redeem.pickExpiry : w.redeem.expiresOn(value)}
      </div>
    </div>
  );
}

const YUAN = /^\d{1,7}(\.\d{0,2})?$/;
const fenToText = (value: unknown) =>
  typeof value === 'number' && Number.isInteger(value) ? (value / 100).toFixed(2).replace(/\.00$/, '') : '';

/**
 * A price in fen entered in yuan (`ui:widget: 'yuan'`): 9.9 leaves as 990. Text that is not an amount of yuan leaves
 * as it is, so the validator reports the field.
 */
function YuanWidget(props: WidgetProps) {
  const [text, setText] = useState(() => fenToText(props.value));
  // A value set from outside (the loaded record) shows; one this input produced keeps what the user typed.
  useEffect(() => {
    setText((shown) => {
      if (YUAN.test(shown) && Math.round(Number(shown) * 100) === props.value) return shown;
      if (typeof props.value === 'number') return fenToText(props.value);
      return props.value === undefined || props.value === null ? '' : shown;
    });
  }, [props.value]);
  return (
    <Input
      {...inputProps(props)}
      type="text"
      inputMode="decimal"
      value={text}
      onChange={(value) => {
        setText(value);
        props.onChange(
          value === '' ? props.options.emptyValue : YUAN.test(value) ? Math.round(Number(value) * 100) : value,
        );
      }}
    />
  );
}

/** The columns a quota CSV's header names, with the words a person reads them by: the file keeps the real names. */
const CSV_COLUMNS = [
  { name: 'userAccount', words: w.tasks.csvAccount, example: 'zhangsan' },
  { name: 'amount', words: w.tasks.csvAmount, example: '10' },
] as const;

/** The template offered for download: the header line only, so nothing in it can be sent by mistake as data. */
const CSV_TEMPLATE = `data:text/csv;charset=utf-8,${encodeURIComponent(`${CSV_COLUMNS.map((c) => c.name).join(',')}\n`)}`;

/**
 * A CSV pasted or read from a chosen file (`ui:widget: 'csvFile'`): the file's text lands in the same text area, so
 * the admin sees (and may fix) what will be sent; the server checks it line by line. The file is chosen with one
 * styled button (the browser's own file input, with its English words, is hidden behind it but still takes the focus)
 * beside a template holding only the header; the expected header is shown column by column, its real name beside its
 * meaning in words and a labelled example, and the file's rules (one line per account) are said before any upload.
 */
function CsvFileWidget(props: WidgetProps) {
  const disabled = props.disabled || props.readonly;
  return (
    <div className="csv-file-widget">
      <TextareaWidget {...props} />
      <label className={`csv-file-pick${disabled ? ' csv-file-pick-disabled' : ''}`}>
        <input
          type="file"
          className="visually-hidden"
          accept=".csv,text/csv,text/plain"
          disabled={disabled}
          onChange={(event) => {
            const file = event.target.files?.[0];
            if (file) void file.text().then((text) => props.onChange(emptyAs(props, text)));
            // Choosing the same file again (after fixing it) must read it again.
            event.target.value = '';
          }}
        />
        {w.tasks.pickFile}
      </label>
      <a className="csv-file-template" href={CSV_TEMPLATE} download={w.tasks.templateFile}>
        {w.tasks.template}
      </a>
      <table className="csv-file-columns">
        <caption>{w.tasks.csvHeader}</caption>
        <thead>
          <tr>
            <th scope="col">{w.tasks.csvColumn}</th>
            <th scope="col">{w.tasks.csvMeaning}</th>
            <th scope="col">{w.tasks.csvExample}</th>
          </tr>
        </thead>
        <tbody>
          {CSV_COLUMNS.map((c) => (
            <tr key={c.name}>
              <td>
                <code>{c.name}</code>
              </td>
              <td>{c.words}</td>
              <td>
                <code>{c.example}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <ul className="csv-file-help">
        {w.tasks.csvRules.map((rule) => (
          <li key={rule}>{rule}</li>
        ))}
      </ul>
    </div>
  );
}

export const widgets: RegistryWidgetsType = {
  csvFile: CsvFileWidget,
  platform: PlatformWidget,
  time: TimeWidget,
  expiry: ExpiryWidget,
  choices: ChoicesWidget,
  yuan: YuanWidget,
  TextWidget,
  PasswordWidget,
  EmailWidget,
  URLWidget,
  UpDownWidget,
  TextareaWidget,
  SelectWidget,
  RadioWidget: SelectWidget,
  CheckboxWidget,
};
