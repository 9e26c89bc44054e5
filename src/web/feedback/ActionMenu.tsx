import { Popup, SafeArea } from 'antd-mobile';
import 'antd-mobile/es/components/action-sheet/action-sheet.css';
import { useEffect, useRef, useState } from 'react';
import './action-menu.css';

export interface MenuAction {
  text: string;
  danger?: boolean;
  onAction: () => void;
}

/**
 * The sheet of a row's actions, sliding up from the bottom: antd-mobile's ActionSheet look, built from buttons.
 * Its own ActionSheet marks each action role="option" outside any listbox and draws it as an <a> without href, which
 * a keyboard cannot reach and a screen reader announces as a broken list; here every action is a real button,
 * the focus moved into the sheet when it opens, and Escape, the mask or 取消 close it.
 */
export function ActionMenu({
  actions,
  cancelText,
  onClosed,
}: {
  actions: readonly MenuAction[];
  cancelText: string;
  onClosed: () => void;
}) {
  const [visible, setVisible] = useState(true);
  const close = () => setVisible(false);
  const sheet = useRef<HTMLDivElement>(null);
  useEffect(() => {
    // Focus moves into the sheet (not onto an action, which would draw a ring under a finger): Tab then walks its
    // actions instead of the page behind, and Escape leaves it as the mask does.
    sheet.current?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') setVisible(false);
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
  return (
    <Popup
      visible={visible}
      onMaskClick={close}
      onClose={close}
      afterClose={onClosed}
      className="adm-action-sheet-popup"
      destroyOnClose
    >
      <div className="adm-action-sheet app-action-menu" role="group" tabIndex={-1} ref={sheet}>
        <div className="adm-action-sheet-button-list">
          {actions.map((action, index) => (
            <div key={index} className="adm-action-sheet-button-item-wrapper">
              <button
                type="button"
                className={`app-action-menu-button adm-action-sheet-button-item${action.danger ? ' adm-action-sheet-button-item-danger' : ''}`}
                onClick={() => {
                  close();
                  action.onAction();
                }}
              >
                <div className="adm-action-sheet-button-item-name">{action.text}</div>
              </button>
            </div>
          ))}
        </div>
        <div className="adm-action-sheet-cancel">
          <div className="adm-action-sheet-button-item-wrapper">
            <button type="button" className="app-action-menu-button adm-action-sheet-button-item" onClick={close}>
              <div className="adm-action-sheet-button-item-name">{cancelText}</div>
            </button>
          </div>
        </div>
        <SafeArea position="bottom" />
      </div>
    </Popup>
  );
}
