import { withTheme } from '@rjsf/core';
import { templates } from './templates';
import { widgets } from './widgets';

/** @rjsf/core's Form with the antd-mobile theme: widgets and templates registered once, as rjsf themes do. */
export const ThemedForm = withTheme({ widgets, templates });
