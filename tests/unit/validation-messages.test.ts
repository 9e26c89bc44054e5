import { describe, expect, it } from 'vitest';
import { describeValidationError } from '../../src/shared/validation-messages.js';

// The sentences a person reads when a field is refused: Chinese with Latin words set apart by a space, as people
// write them (`请填写 API Key`, not `请填写API Key`).
describe('validation sentences', () => {
  it.each([
    ['required', {}, 'API Key', undefined, '请填写 API Key'],
    ['maxLength', { limit: 200 }, 'AI 接口地址', undefined, 'AI 接口地址最多 200 个字符'],
    ['pattern', {}, 'Key', '只能包含字母', 'Key 只能包含字母'],
    ['required', {}, '昵称', undefined, '请填写昵称'],
    ['additionalProperties', { additionalProperty: 'latitude' }, '', undefined, '不支持的参数：latitude'],
  ])('%s of %j titled %s reads as a sentence', (keyword, params, title, rule, sentence) => {
    expect(describeValidationError(keyword, params, title, rule)).toBe(sentence);
  });
});
