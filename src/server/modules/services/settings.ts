import type { Schemas } from '../../../api/operations.js';
import { badParams, type AppError } from '../../lib/errors.js';
import { SCHEMAS_ID } from '../../http/openapi.js';
import type { RequestValidator } from '../../http/validation.js';

/** Rules a JSON schema cannot say, by settings family. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- settings arrive validated by their family schema; each entry names its own type
const EXTRA_RULES: Record<string, (settings: any) => string | undefined> = {
  CourseSettings: (s: Schemas['CourseSettings']) => {
    const bad = s.courses.find((c) => c.windowEnd <= c.windowStart);
    return bad ? `课程“${bad.name}”的结束时间应晚于开始时间` : undefined;
  },
};

/**
 * Validates a service's settings against its kind's component schema in openapi.yaml, with the same Ajv setup and
 * Chinese field messages as request validation (the edit form is generated from the same schema).
 */
export class SettingsValidator {
  private readonly compiled = new Map<string, (data: unknown) => { error?: AppError }>();

  constructor(private readonly requests: RequestValidator) {}

  check(schemaName: string, settings: unknown): void {
    let validate = this.compiled.get(schemaName);
    if (!validate) {
      validate = this.requests.compile({ $ref: `${SCHEMAS_ID}#/$defs/${schemaName}` }, 'body');
      this.compiled.set(schemaName, validate);
    }
    const { error } = validate(settings);
    if (error) throw error;
    const extra = EXTRA_RULES[schemaName]?.(settings);
    if (extra) throw badParams(extra);
  }
}
