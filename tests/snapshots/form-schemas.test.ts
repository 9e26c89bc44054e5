import { describe, expect, it } from 'vitest';
import { screens } from '../../screens.config';
import { resolveForm, type AnyFormScreen } from '../../src/web/renderers/FormRenderer';

// What every generated form renders, written down: a change to openapi.yaml or to a form screen's config shows up
// here as a snapshot diff in review, next to the contract change that caused it.

const formScreens = screens.filter((s): s is AnyFormScreen => s.kind === 'form');

describe('form screens and the contract', () => {
  it('has form screens to check', () => {
    expect(formScreens.length).toBeGreaterThan(0);
  });

  for (const screen of formScreens) {
    describe(screen.path, () => {
      const form = resolveForm(screen);
      const properties = Object.keys(form.schema.properties ?? {});

      it('lists only fields its operation takes', () => {
        for (const name of [...(screen.fields ?? []), ...(screen.textareas ?? []), ...form.fixed]) {
          expect(properties, `${screen.submit} has no field ${name}`).toContain(name);
        }
        for (const name of screen.textareas ?? []) expect(form.fields, `${name} is a textarea but not shown`).toContain(name);
      });

      it('shows every required field or fills it from the URL', () => {
        for (const name of (form.schema.required ?? []) as string[]) {
          expect([...form.fields, ...form.fixed], `${screen.submit} requires ${name}`).toContain(name);
        }
      });

      it('renders the schema and uiSchema of the snapshot', () => {
        expect({ operation: form.operation, fields: form.fields, fixed: form.fixed, schema: form.schema, uiSchema: form.uiSchema }).toMatchSnapshot();
      });
    });
  }
});
