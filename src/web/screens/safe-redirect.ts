/** Only same-app paths: a crafted `?redirect=//evil.example` must not send a user off-site after login. */
export function safeRedirect(target: string | null): string {
  if (!target || !target.startsWith('/') || target.startsWith('//') || target.startsWith('/\\')) return '/';
  if (target.startsWith('/login') || target.startsWith('/register')) return '/';
  return target;
}
