//! PLACEHOLDER, replaced by the quick switcher work.
export function QuickSwitcher() {
  return null;
}
