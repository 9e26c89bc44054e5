/**
 * Leaves the app for an address outside it (a payment channel's cashier): a whole page load, as a gateway expects.
 * One object, so the component tests can stand in for the browser's navigation.
 */
export const leavePage = {
  to(url: string): void {
    window.location.assign(url);
  },
};
