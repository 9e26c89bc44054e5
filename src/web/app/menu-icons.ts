import {
  AppOutline,
  AppstoreOutline,
  BellOutline,
  BillOutline,
  CalendarOutline,
  ChatAddOutline,
  CheckCircleOutline,
  ClockCircleOutline,
  CloseCircleOutline,
  CollectMoneyOutline,
  CompassOutline,
  ContentOutline,
  CouponOutline,
  EnvironmentOutline,
  FileOutline,
  FlagOutline,
  GiftOutline,
  HistogramOutline,
  KeyOutline,
  LockOutline,
  MailOutline,
  PayCircleOutline,
  PieOutline,
  SendOutline,
  SetOutline,
  ShopbagOutline,
  TeamOutline,
  UnorderedListOutline,
  UserCircleOutline,
  UserContactOutline,
  UserSetOutline,
  VideoOutline,
} from 'antd-mobile-icons';

// The icons a menu entry may name in screens.config.ts, each imported by name so the bundle keeps only these. Only
// home and my page import this map (both lazy), so no icon is part of the first download of other pages; the screen
// map itself imports the type alone.
export const menuIcons = {
  AppOutline,
  AppstoreOutline,
  BellOutline,
  BillOutline,
  CalendarOutline,
  ChatAddOutline,
  CheckCircleOutline,
  ClockCircleOutline,
  CloseCircleOutline,
  CollectMoneyOutline,
  CompassOutline,
  ContentOutline,
  CouponOutline,
  EnvironmentOutline,
  FileOutline,
  FlagOutline,
  GiftOutline,
  HistogramOutline,
  KeyOutline,
  LockOutline,
  MailOutline,
  PayCircleOutline,
  PieOutline,
  SendOutline,
  SetOutline,
  ShopbagOutline,
  TeamOutline,
  UnorderedListOutline,
  UserCircleOutline,
  UserContactOutline,
  UserSetOutline,
  VideoOutline,
};

export type MenuIconName = keyof typeof menuIcons;

/**
 * The palette of icon tints: six hues of one lightness, each defined as a CSS variable (--app-tint-NAME) in
 * shell/frame.css, once for each theme.
 */
export type Tint = 'blue' | 'green' | 'orange' | 'red' | 'purple' | 'cyan';
