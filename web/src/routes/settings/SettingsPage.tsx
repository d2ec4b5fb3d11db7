//! PLACEHOLDER, replaced by the Settings work.
export function SettingsPage() {
  return <p className="p-6">Settings</p>;
}
