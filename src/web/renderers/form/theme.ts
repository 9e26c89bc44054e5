import { withTheme } from '@rjsf/core';
import { arrayTemplates, buttonTemplates } from './arrays';
import { templates } from './templates';
import { widgets } from './widgets';
import './form.css';

/** @rjsf/core's Form with the antd-mobile theme: widgets and templates registered once, as rjsf themes do. */
export const ThemedForm = withTheme({
  widgets,
  // A field a ceremony fills on the device after the form (FormScreen.ceremony): the form draws nothing for it.
  fields: { byCeremony: () => null },
  templates: { ...templates, ...arrayTemplates, ButtonTemplates: buttonTemplates },
});
