/** The seed's business constants for the UI. */
export const TOAST_MS = 2000;
export const NOTIFY_MS = 3000;
export const SITE_INFORMATION_ID = 1;
/** A wait longer than this shows '加载中...' (shorter ones would only flicker). */
export const BUSY_AFTER_MS = 300;
/** Row actions a swipe shows at most (about 70 px each on a 390 px phone); the rest wait behind '更多'. */
export const SWIPE_MAX = 3;
