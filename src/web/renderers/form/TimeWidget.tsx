import { useMemo, useState } from 'react';
import type { WidgetProps } from '@rjsf/utils';
import { Button, Picker } from 'antd-mobile';
import { signedInMessages as w } from '../../i18n/zh-CN-signed-in';

// A time of day (HH:mm, the contract's TimeOfDay) picked on a phone wheel at minute precision instead of typed: hours
// and minutes as two columns. resolveForm gives every field of that shape this widget, nested ones (a course's window)
// too, so a new time field needs no screen code.

const pad = (n: number) => String(n).padStart(2, '0');
const HOURS = Array.from({ length: 24 }, (_, h) => ({ label: pad(h), value: pad(h) }));
const MINUTES = Array.from({ length: 60 }, (_, m) => ({ label: pad(m), value: pad(m) }));
const TIME = /^([01][0-9]|2[0-3]):([0-5][0-9])$/;

/** Where the wheel starts for an empty field: a usual working-day time, not midnight. */
const START = ['08', '00'];

export function TimeWidget(props: WidgetProps) {
  const [open, setOpen] = useState(false);
  const value = typeof props.value === 'string' && TIME.test(props.value) ? props.value : undefined;
  const disabled = props.disabled || props.readonly;
  // One array per value: the picker resets its wheel whenever it is handed a new one.
  const wheel = useMemo(() => (value ? value.split(':') : START), [value]);
  return (
    <div className="time-widget">
      {/* A plain button (antd-mobile's drops the id, which the field's label points at), named by the field and its
          time together: the label alone would hide the time from a screen reader. */}
      <button
        type="button"
        id={props.id}
        className="time-widget-value"
        disabled={disabled}
        aria-label={`${props.label} ${value ?? w.form.pickTime}`}
        aria-haspopup="dialog"
        onClick={() => setOpen(true)}
      >
        {value ?? <span className="time-widget-placeholder">{w.form.pickTime}</span>}
      </button>
      {value !== undefined && !props.required ? (
        <Button size="mini" fill="none" disabled={disabled} onClick={() => props.onChange(props.options.emptyValue)}>
          {w.form.clearTime}
        </Button>
      ) : null}
      <Picker
        columns={[HOURS, MINUTES]}
        value={wheel}
        visible={open}
        title={props.label}
        onClose={() => setOpen(false)}
        onConfirm={(picked) => props.onChange(`${String(picked[0] ?? START[0])}:${String(picked[1] ?? START[1])}`)}
      />
    </div>
  );
}
