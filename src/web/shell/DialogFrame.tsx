import { forwardRef, type ButtonHTMLAttributes, type ReactNode } from 'react';
// antd-mobile's own styles for its dialog, so these look the same without its JavaScript (the dialog kit with its
// animation library is a chunk of its own, fetched only after the frame: a dialog of the frame would paint late).
import 'antd-mobile/es/components/mask/mask.css';
import 'antd-mobile/es/components/center-popup/center-popup.css';
import 'antd-mobile/es/components/dialog/dialog.css';
import 'antd-mobile/es/components/button/button.css';

/**
 * The frame's own modal dialogs (the announcement, the policy question), drawn as antd-mobile draws its Dialog: the
 * mask, the box named by its title and described by its content, and a row of buttons. Focus and keys are the
 * caller's (each dialog has its own rule for them).
 */
export function DialogFrame({
  title,
  titleId,
  contentId,
  onMaskTap,
  className,
  children,
  actions,
}: {
  title?: ReactNode;
  titleId: string;
  contentId: string;
  onMaskTap?: () => void;
  className?: string;
  children: ReactNode;
  actions: ReactNode;
}) {
  return (
    <div className={className ? `adm-center-popup adm-dialog ${className}` : 'adm-center-popup adm-dialog'}>
      <div
        className="adm-mask adm-center-popup-mask"
        aria-hidden="true"
        style={{ background: 'rgba(0, 0, 0, 0.55)' }}
        onClick={onMaskTap}
      />
      <div
        className="adm-center-popup-wrap"
        role="dialog"
        aria-modal="true"
        aria-labelledby={title ? titleId : contentId}
        aria-describedby={title ? contentId : undefined}
      >
        <div className="adm-center-popup-body adm-dialog-body">
          {title && (
            <div className="adm-dialog-title" id={titleId}>
              {title}
            </div>
          )}
          <div className="adm-dialog-content">{children}</div>
          <div className="adm-dialog-footer">
            <div className="adm-dialog-action-row">{actions}</div>
          </div>
        </div>
      </div>
    </div>
  );
}

/** One button of a DialogFrame's row: the primary one in the brand colour, `bold` for the one the dialog proposes. */
export const DialogButton = forwardRef<
  HTMLButtonElement,
  ButtonHTMLAttributes<HTMLButtonElement> & { primary?: boolean; bold?: boolean }
>(function DialogButton({ primary = true, bold = false, children, ...props }, ref) {
  const tone = primary ? 'adm-button-primary' : 'adm-button-default';
  return (
    <button
      ref={ref}
      type="button"
      className={`adm-button ${tone} adm-button-block adm-button-fill-none adm-button-shape-rectangular adm-dialog-button${bold ? ' adm-dialog-button-bold' : ''}`}
      {...props}
    >
      <span>{children}</span>
    </button>
  );
});
