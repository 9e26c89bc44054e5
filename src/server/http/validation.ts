import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describeValidationError, validationMessages } from '../../shared/validation-messages.js';
import { AppError, ErrorCode } from '../lib/errors.js';
import { SCHEMAS_ID, type JsonSchema, type OpenApiDocument, rebaseRefs } from './openapi.js';
import { schemaLayers } from './schema-layers.js';

/** Keywords OpenAPI allows beside JSON Schema; Ajv's strict mode would reject them otherwise. */
const ANNOTATIONS = ['example', 'x-message', 'x-roles', 'xml', 'externalDocs', 'discriminator'];

function createAjv(coerceTypes: boolean, doc: OpenApiDocument): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: false, coerceTypes, useDefaults: true, strict: true, strictRequired: false });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addVocabulary(ANNOTATIONS);
  ajv.addSchema({ $id: SCHEMAS_ID, $defs: rebaseRefs(doc.components.schemas) });
  return ajv;
}

/**
 * Validates query strings (with type coercion: every query value arrives as text) and JSON bodies (without) against
 * the operation's schemas, and turns the first failure into one Chinese sentence a user can act on.
 */
export class RequestValidator {
  private readonly query: Ajv2020;
  private readonly body: Ajv2020;
  private readonly defs: Record<string, JsonSchema>;

  constructor(doc: OpenApiDocument) {
    this.query = createAjv(true, doc);
    this.body = createAjv(false, doc);
    this.defs = rebaseRefs(doc.components.schemas);
  }

  compile(
    schema: JsonSchema,
    part: 'querystring' | 'headers' | 'body',
  ): (data: unknown) => { value?: unknown; error?: AppError } {
    const validate: ValidateFunction = (part === 'body' ? this.body : this.query).compile(schema);
    return (data) => {
      if (part === 'body' && data === undefined)
        return { error: new AppError(ErrorCode.BAD_PARAMS, validationMessages.bodyRequired) };
      if (validate(data)) return { value: data };
      const error = validate.errors?.[0];
      // A header is the client program's job, never the person's: they read one plain sentence, and the header and
      // its rule go to the developer in `detail`.
      if (part === 'headers')
        return {
          error: new AppError(
            ErrorCode.BAD_PARAMS,
            validationMessages.protocol,
            undefined,
            `header ${error?.instancePath.slice(1) || String(error?.params.missingProperty ?? '')}: ${error?.message ?? 'invalid'}`,
          ),
        };
      return { error: new AppError(ErrorCode.BAD_PARAMS, this.describe(schema, error)) };
    };
  }

  /** The schemas that describe one property, outermost first (the property itself, then its $ref and allOf). */
  private layers(schema: JsonSchema | undefined): JsonSchema[] {
    return schemaLayers(schema, (ref) => this.defs[ref.slice(ref.lastIndexOf('/') + 1)]);
  }

  private propertySchema(root: JsonSchema, path: string[]): JsonSchema[] {
    let layers = this.layers(root);
    for (const segment of path) {
      const next = layers
        // An array element (`/courses/0/name`) is described by the array's `items`.
        .map((l) =>
          /^\d+$/.test(segment)
            ? (l.items as JsonSchema | undefined)
            : (l.properties as Record<string, JsonSchema> | undefined)?.[segment],
        )
        .find((p) => p !== undefined);
      layers = this.layers(next);
    }
    return layers;
  }

  private describe(root: JsonSchema, error: ErrorObject | undefined): string {
    if (!error) return validationMessages.invalid;
    const path = error.instancePath.split('/').slice(1).map(decodeURIComponent);
    if (error.keyword === 'required') path.push(String(error.params.missingProperty));
    const layers = this.propertySchema(root, path);
    const pick = (key: string) => layers.map((l) => l[key]).find((v) => v !== undefined);
    const title = (pick('title') as string | undefined) ?? (path.at(-1) || '请求参数');
    // A fixed-length code (a captcha, a redeem code) says its format, which states the length, for a wrong length too.
    const fixedLength = pick('minLength') !== undefined && pick('minLength') === pick('maxLength');
    const lengthFault = error.keyword === 'minLength' || error.keyword === 'maxLength';
    return describeValidationError(
      fixedLength && lengthFault && pick('x-message') !== undefined ? 'pattern' : error.keyword,
      error.params as Record<string, unknown>,
      title,
      pick('x-message') as string | undefined,
    );
  }
}
