import type { ComponentType } from 'react';
import type { CustomScreenName } from '../config/types';

/** A hand screen's chunk, fetched when the screen is first opened. */
export type ScreenModule = () => Promise<{ default: ComponentType }>;

/**
 * The hand screens the screen map names (`kind: 'custom', screen: <name>`). A record over every name, so a name the
 * map may use without a screen here fails the type check; the map itself imports none of them (no import circle).
 */
export const customScreens: Record<CustomScreenName, ScreenModule> = {
  login: () => import('../screens/Login'),
  register: () => import('../screens/Register'),
  serverError: () => import('../screens/ServerError'),
  home: () => import('../screens/Home'),
  about: () => import('../screens/About'),
  mall: () => import('../screens/Mall'),
  transferCoin: () => import('../screens/TransferCoin'),
  bindEmail: () => import('../screens/BindEmail'),
  coinChange: () => import('../screens/CoinChange'),
  redeemGenerate: () => import('../screens/RedeemGenerate'),
  twoFactor: () => import('../screens/TwoFactor'),
  cashier: () => import('../screens/Cashier'),
  payResult: () => import('../screens/PayResult'),
};
