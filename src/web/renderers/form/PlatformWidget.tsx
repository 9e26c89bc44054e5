import { useEffect, useState } from 'react';
import type { WidgetProps } from '@rjsf/utils';
import { Button, Selector } from 'antd-mobile';
import type { Schemas } from '../../../api/operations';
import { api } from '../../api';
import { messages as t } from '../../i18n/zh-CN';
import { signedInMessages as w } from '../../i18n/zh-CN-signed-in';

// A platform picked by its name (`ui:widget: 'platform'`) from the admin's list of platforms, never typed as an id.
// A field the contract leaves optional (a quota for every platform) offers 全部平台 first, which sends nothing.

/** The chip of an optional field's "every platform": no platform id is 0, so it cannot collide with one. */
const ALL = 0;

type Platform = Schemas['Platform'];

export function PlatformWidget(props: WidgetProps) {
  const [platforms, setPlatforms] = useState<Platform[] | null>(null);
  const [failed, setFailed] = useState(false);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    const controller = new AbortController();
    setFailed(false);
    api.call('platformListPage', { body: { current: 1, pageSize: 100 }, signal: controller.signal, quiet: true }).then(
      (page) => setPlatforms(page.records),
      () => {
        if (!controller.signal.aborted) setFailed(true);
      },
    );
    return () => controller.abort();
  }, [attempt]);

  if (failed) {
    return (
      <div id={props.id}>
        {t.shell.loadFailed}{' '}
        <Button size="mini" fill="none" color="primary" onClick={() => setAttempt((n) => n + 1)}>
          {t.shell.retry}
        </Button>
      </div>
    );
  }
  if (!platforms) return <div id={props.id}>{t.shell.loading}</div>;
  const options = [
    ...(props.required ? [] : [{ label: w.quota.allPlatforms, value: ALL }]),
    ...platforms.map((p) => ({ label: w.form.platformChoice(p.name, p.status === 1), value: p.id })),
  ];
  const value = typeof props.value === 'number' ? props.value : props.required ? undefined : ALL;
  return (
    <div id={props.id}>
      {platforms.length === 0 ? (
        <div className="form-widget-hint">{w.platform.empty}</div>
      ) : (
        <Selector
          options={options}
          value={value === undefined ? [] : [value]}
          disabled={props.disabled || props.readonly}
          onChange={(values) => {
            const picked = values[0];
            props.onChange(picked === undefined || picked === ALL ? props.options.emptyValue : picked);
          }}
        />
      )}
    </div>
  );
}
