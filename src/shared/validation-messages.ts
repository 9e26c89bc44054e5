// The one wording of a refused input, shared by the server (src/server/http/validation.ts, answering a request that
// fails the contract) and the web app (src/web/renderers/form/localize.ts, checking a form before it is sent), so a
// field reads the same sentence whichever side caught it. Built from the field's `title` and, for a pattern, the
// contract's `x-message`.

export const validationMessages = {
  bodyRequired: '请求内容不能为空',
  invalid: '请求参数不正确',
  /** A request the app itself built wrongly (a header): nothing the person typed; reloading gets a fixed client. */
  protocol: '请求无法完成，请刷新页面后重试',
  required: (title: string) => `请填写${title}`,
  type: (title: string) => `${title}的类型不正确`,
  integer: (title: string) => `${title}应为整数`,
  number: (title: string) => `${title}应为数字`,
  empty: (title: string) => `${title}不能为空`,
  minLength: (title: string, n: number) => `${title}至少 ${n} 个字符`,
  maxLength: (title: string, n: number) => `${title}最多 ${n} 个字符`,
  pattern: (title: string, rule?: string) => `${title}${rule ?? '格式不正确'}`,
  format: (title: string) => `${title}格式不正确`,
  minimum: (title: string, n: number) => `${title}不能小于 ${n}`,
  maximum: (title: string, n: number) => `${title}不能大于 ${n}`,
  enum: (title: string) => `${title}的取值不正确`,
  unknownField: (name: string) => `不支持的参数：${name.slice(0, 40)}`,
  other: (title: string) => `${title}不正确`,
} as const;

/** One Ajv error (its keyword and params) about the field titled `title`, as the sentence a user reads. */
export function describeValidationError(
  keyword: string,
  params: Readonly<Record<string, unknown>>,
  title: string,
  rule?: string,
): string {
  return spaced(sentenceFor(keyword, params, title, rule));
}

/** A space where Chinese meets Latin letters (`请填写 API Key`), as a person would set them apart. */
export const spaced = (sentence: string): string =>
  sentence.replace(/(\p{Script=Han})([A-Za-z])/gu, '$1 $2').replace(/([A-Za-z])(\p{Script=Han})/gu, '$1 $2');

function sentenceFor(keyword: string, params: Readonly<Record<string, unknown>>, title: string, rule?: string): string {
  const m = validationMessages;
  const limit = Number(params.limit);
  switch (keyword) {
    case 'additionalProperties':
    case 'unevaluatedProperties':
      return m.unknownField(String(params.additionalProperty ?? params.unevaluatedProperty));
    case 'required':
      return m.required(title);
    case 'type':
      return params.type === 'integer' ? m.integer(title) : params.type === 'number' ? m.number(title) : m.type(title);
    case 'minLength':
      return limit === 1 ? m.empty(title) : m.minLength(title, limit);
    case 'maxLength':
      return m.maxLength(title, limit);
    case 'pattern':
      return m.pattern(title, rule);
    case 'format':
      return m.format(title);
    case 'minimum':
    case 'exclusiveMinimum':
      return m.minimum(title, limit);
    case 'maximum':
    case 'exclusiveMaximum':
      return m.maximum(title, limit);
    case 'enum':
    case 'const':
      return m.enum(title);
    default:
      return m.other(title);
  }
}
