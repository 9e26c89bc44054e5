import { Tag } from 'antd-mobile';
import type { TagValue } from '../config/types';

const COLORS = {
  default: 'default',
  primary: 'primary',
  success: 'success',
  warning: 'warning',
  danger: 'danger',
} as const;

/** A state as a tag: coloured, and always saying the state in words too. */
export function StateTag({ value }: { value: TagValue | null | undefined }) {
  if (!value) return null;
  return (
    <Tag color={COLORS[value.tone]} fill="outline" className="state-tag">
      {value.text}
    </Tag>
  );
}
