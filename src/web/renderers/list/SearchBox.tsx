import { SearchBar } from 'antd-mobile';
import { CloseCircleFill } from 'antd-mobile-icons';
import { useState } from 'react';
import { signedInMessages as w } from '../../i18n/zh-CN-signed-in';

/**
 * A list's search box. Its clear control is a real 44 px button named 清除搜索: antd-mobile's own is a 23 px div with
 * an aria-label a div may not carry, out of reach of a keyboard and too small for a thumb.
 */
export function SearchBox({
  initial,
  placeholder,
  onSearch,
}: {
  initial: string;
  placeholder?: string;
  onSearch: (text: string | undefined) => void;
}) {
  const [value, setValue] = useState(initial);
  return (
    <div className="list-search">
      <SearchBar
        placeholder={placeholder ?? w.list.searchPlaceholder}
        value={value}
        onChange={setValue}
        clearable={false}
        onSearch={(text) => onSearch(text.trim() || undefined)}
      />
      {value !== '' && (
        <button
          type="button"
          className="list-search-clear"
          aria-label={w.list.clearSearch}
          onClick={() => {
            setValue('');
            onSearch(undefined);
          }}
        >
          <CloseCircleFill aria-hidden />
        </button>
      )}
    </div>
  );
}
