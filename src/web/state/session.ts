import type { Schemas } from '../../api/operations';
import type { Role } from '../../api/generated/operations.gen';
import { createStore } from './store';

export type LoginUser = Schemas['LoginUser'];

/** The signed-in user, or the seed's `notLogin` role for a visitor. */
export interface SessionState {
  user: LoginUser | null;
  role: Exclude<Role, 'visitor'> | 'notLogin';
}

export const sessionStore = createStore<SessionState>({ user: null, role: 'notLogin' });

export const signIn = (user: LoginUser) => sessionStore.set({ user, role: user.userRole });
export const signOut = () => sessionStore.set({ user: null, role: 'notLogin' });
