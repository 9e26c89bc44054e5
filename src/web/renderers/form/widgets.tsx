import type { RegistryWidgetsType, WidgetProps } from '@rjsf/utils';
import { Input, Selector, Switch, TextArea } from 'antd-mobile';

// The widget registry of the antd-mobile theme: each rjsf widget name mapped once to an antd-mobile input. Values
// leave the widgets as rjsf expects them: '' becomes the field's empty value (absent), numbers leave as text and
// rjsf's NumberField turns them into numbers.

const emptyAs = (props: WidgetProps, value: string) => (value === '' ? props.options.emptyValue : value);

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
      clearable={!numeric && props.type !== 'password'}
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

export const widgets: RegistryWidgetsType = {
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
