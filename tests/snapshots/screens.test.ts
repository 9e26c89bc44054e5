import { describe, expect, it } from 'vitest';
import * as config from '../../screens.config';
import type { ComposedScreen, DetailScreen, ListScreen, Part, RowAction } from '../../src/web/config/types';
import { resolveForm, type AnyFormScreen } from '../../src/web/renderers/FormRenderer';

// What every generic screen renders, written down: a change to openapi.yaml or to a screen's config shows up here as
// a snapshot diff in review, next to the change that caused it. The screens are collected from everything
// screens.config.ts exports (the map, and the forms hand screens embed), so a new screen needs no new test line.

type Generic = ListScreen<any> | DetailScreen<any> | AnyFormScreen | ComposedScreen<any>;
const isGeneric = (value: unknown): value is Generic =>
  typeof value === 'object' &&
  value !== null &&
  ['list', 'detail', 'form', 'composed'].includes((value as { kind?: unknown }).kind as string);

function collect(value: unknown, found: Set<Generic>): Set<Generic> {
  if (isGeneric(value)) found.add(value);
  else if (Array.isArray(value)) for (const item of value) collect(item, found);
  else if (typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype) {
    for (const item of Object.values(value)) collect(item, found);
  }
  return found;
}

const generic = [...collect(Object.values(config), new Set())];
const operationOf = (screen: Generic) =>
  screen.kind === 'form'
    ? screen.submit
    : screen.kind === 'composed'
      ? (screen.load?.operation ?? '-')
      : screen.operation;
const nameOf = (screen: Generic) => `${screen.kind} ${screen.path} (${String(operationOf(screen))})`;
const byKind = <K extends Generic['kind']>(kind: K) =>
  generic.filter((s): s is Extract<Generic, { kind: K }> => s.kind === kind);

/** A list screen as data: what it calls, offers and links to (its row callbacks are typed by the screen map). */
function describeList(screen: ListScreen<any>) {
  const sample = new URLSearchParams({ userId: '7' });
  return {
    operation: screen.operation,
    access: screen.access,
    search: screen.search ?? false,
    sortFields: screen.sortFields ?? [],
    urlFilters: screen.urlFilters ?? [],
    addLink: screen.addLink ?? null,
    download: screen.download ? { label: screen.download.label, href: screen.download.href(sample) } : null,
    ...(screen.chips ? { chips: screen.chips.map((c) => ({ field: c.field, values: Object.keys(c.options) })) } : {}),
    rowActions: describeActions(screen.rowActions),
    ...(screen.item.tag ? { tag: true } : {}),
    empty: screen.empty ?? null,
  };
}

function describeActions(actions: readonly RowAction<any>[] | undefined) {
  return (actions ?? []).map((a) => ({
    label: a.label,
    color: a.color ?? 'light',
    ...('call' in a
      ? { operation: a.call.operation, confirms: Boolean(a.confirm) }
      : 'choose' in a
        ? { operation: a.choose.call.operation, choices: a.choose.from.operation }
        : { link: true }),
    conditional: Boolean(a.when),
  }));
}

/** A composed screen's parts as data, each in the terms of its own kind. */
function describePart(part: Part<any>) {
  switch (part.type) {
    case 'detail':
      return {
        type: part.type,
        fields: part.fields.map((f) => ({ label: f.label, tag: Boolean(f.tag) })),
        actions: describeActions(part.actions),
      };
    case 'list':
      return {
        type: part.type,
        title: part.title ?? null,
        operation: part.operation,
        filtered: Boolean(part.filter),
        live: Boolean(part.live),
        tag: Boolean(part.item.tag),
        rowActions: describeActions(part.rowActions),
        empty: part.empty ?? null,
      };
    case 'cards':
      return { type: part.type, title: part.title ?? null, operation: part.operation, empty: part.empty };
    case 'stats':
      return {
        type: part.type,
        operation: part.operation,
        groups: part.groups.map((g) => ({ title: g.title, stats: g.stats.map((s) => s.label) })),
      };
    case 'chart':
      return {
        type: part.type,
        operation: part.operation,
        ranges: part.ranges.map((r) => r.value),
        charts: part.charts.map((c) => ({ title: c.title, kind: c.kind, series: c.series.map((s) => s.label) })),
        empty: part.empty,
      };
    case 'calendar':
      return {
        type: part.type,
        title: part.title ?? null,
        operation: part.operation,
        marks: part.marks,
        day: { operation: part.day.operation, empty: part.day.empty },
      };
    case 'document':
      return { type: part.type, note: Boolean(part.note) };
  }
}

describe('generic screens and the contract', () => {
  it('has screens of every generic kind to check', () => {
    for (const kind of ['list', 'detail', 'form', 'composed'] as const)
      expect(byKind(kind).length, kind).toBeGreaterThan(0);
  });

  it('collects the forms hand screens embed', () => {
    expect(generic).toContain(config.redeemGenerateForm);
    for (const form of Object.values(config.coinChangeForms)) expect(generic).toContain(form);
  });

  for (const screen of byKind('form')) {
    describe(nameOf(screen), () => {
      const form = resolveForm(screen);
      const properties = Object.keys(form.schema.properties ?? {});

      it('lists only fields its operation takes', () => {
        for (const name of [...(screen.fields ?? []), ...(screen.textareas ?? []), ...form.fixed]) {
          expect(properties, `${screen.submit} has no field ${name}`).toContain(name);
        }
        for (const name of (screen.textareas ?? []) as readonly string[])
          expect(form.fields, `${name} is a textarea but not shown`).toContain(name);
      });

      it('shows every required field, fills it from the URL, or has the device fill it (a ceremony)', () => {
        const filled = [...form.fields, ...form.fixed, ...(form.ceremonyField ? [form.ceremonyField] : [])];
        for (const name of form.schema.required ?? []) {
          expect(filled, `${screen.submit} requires ${name}`).toContain(name);
        }
      });

      it('renders the schema and uiSchema of the snapshot', () => {
        expect({
          operation: form.operation,
          ...(form.into ? { into: form.into } : {}),
          fields: form.fields,
          fixed: form.fixed,
          schema: form.schema,
          uiSchema: form.uiSchema,
        }).toMatchSnapshot();
      });
    });
  }

  for (const screen of byKind('list')) {
    it(`${nameOf(screen)} renders the list of the snapshot`, () => {
      expect(describeList(screen)).toMatchSnapshot();
    });
  }

  for (const screen of byKind('composed')) {
    it(`${nameOf(screen)} renders the parts of the snapshot`, () => {
      expect({
        load: screen.load?.operation ?? null,
        access: screen.access,
        unavailable: Boolean(screen.unavailable),
        body: (screen.body as readonly Part<any>[]).map(describePart),
      }).toMatchSnapshot();
    });
  }

  for (const screen of byKind('detail')) {
    it(`${nameOf(screen)} renders the detail of the snapshot`, () => {
      expect({ operation: screen.operation, access: screen.access, fields: screen.fields }).toMatchSnapshot();
    });
  }
});
