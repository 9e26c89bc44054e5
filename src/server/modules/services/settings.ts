import { badParams, type AppError } from '../../lib/errors.js';
import { forFamily, validated, type ByFamily, type FamilySettings, type SettingsFamily } from './families.js';

/**
 * Rules a JSON schema cannot say, by settings family; `none` where the schema says it all. A new family fails the type
 * check until it says which.
 */
const none = () => undefined;
const EXTRA_RULES: ByFamily<string | undefined> = {
  ClockInSettings: none,
  CourseSettings: (s) => {
    const bad = s.courses.find((c) => c.windowEnd <= c.windowStart);
    return bad ? `课程“${bad.name}”的结束时间应晚于开始时间` : undefined;
  },
};

/**
 * A validator of one component schema of openapi.yaml, by name: the app builds it from request validation's Ajv setup
 * (http/validation.ts), so settings get the same Chinese field messages as a request body.
 */
export type CompileSchema = (schemaName: SettingsFamily) => (data: unknown) => { error?: AppError };

/**
 * Validates a service's settings against its kind's component schema in openapi.yaml (the edit form is generated from
 * the same schema), and types them by their family from then on.
 */
export class SettingsValidator {
  private readonly compiled = new Map<SettingsFamily, (data: unknown) => { error?: AppError }>();

  constructor(private readonly compile: CompileSchema) {}

  check<F extends SettingsFamily>(family: F, input: unknown): FamilySettings<F> {
    let validate = this.compiled.get(family);
    if (!validate) {
      validate = this.compile(family);
      this.compiled.set(family, validate);
    }
    const { error } = validate(input);
    if (error) throw error;
    const settings = validated(family, input);
    const extra = forFamily(EXTRA_RULES, settings, undefined);
    if (extra) throw badParams(extra);
    return settings;
  }
}
