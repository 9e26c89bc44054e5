import { act, cleanup, fireEvent, render, screen as view } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { showAnnouncement } from '../../src/web/shell/announcement';
import { AnnouncementDialog } from '../../src/web/shell/AnnouncementDialog';

// The announcement's own dialog (drawn with the frame, not antd-mobile's): a modal a screen reader names by its
// title, with focus inside it, closed by 确定, Escape or a tap on the mask, focus given back where it was.

afterEach(cleanup);

function open(title = '公告', content = '第一行\n第二行') {
  const before = document.createElement('button');
  before.textContent = '气泡';
  document.body.appendChild(before);
  before.focus();
  render(<AnnouncementDialog />);
  act(() => showAnnouncement(title, content));
  return before;
}

describe('the announcement dialog', () => {
  it('is a modal named by its title, described by its text, with focus on 确定', () => {
    open();
    const dialog = view.getByRole('dialog', { name: '公告' });
    expect(dialog.getAttribute('aria-modal')).toBe('true');
    expect(dialog).toHaveProperty('textContent', expect.stringContaining('第一行\n第二行'));
    expect(document.activeElement).toBe(view.getByRole('button', { name: '确定' }));
    expect(document.body.classList.contains('adm-overflow-hidden')).toBe(true);
  });

  it('closes on 确定 and gives focus back', () => {
    const before = open();
    fireEvent.click(view.getByRole('button', { name: '确定' }));
    expect(view.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(before);
    expect(document.body.classList.contains('adm-overflow-hidden')).toBe(false);
  });

  it('closes on Escape and on a tap on the mask', () => {
    open();
    fireEvent.keyDown(document, { key: 'Escape' });
    expect(view.queryByRole('dialog')).toBeNull();
    act(() => showAnnouncement('公告', '内容'));
    fireEvent.click(document.querySelector('.adm-mask')!);
    expect(view.queryByRole('dialog')).toBeNull();
  });

  it('without a title is named by its text', () => {
    open('', '只有内容');
    expect(view.getByRole('dialog', { name: '只有内容' })).toBeTruthy();
  });
});
