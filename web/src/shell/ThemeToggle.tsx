//! The three-way theme toggle (Light, Dark, Match the system) as icon radio buttons.
import { ToggleGroup } from "radix-ui";
import { Monitor, Moon, Sun } from "lucide-react";
import { setTheme, useTheme, type Theme } from "../lib/theme";

const choices: { value: Theme; label: string; icon: typeof Sun }[] = [
  { value: "light", label: "Light", icon: Sun },
  { value: "dark", label: "Dark", icon: Moon },
  { value: "system", label: "Match the system", icon: Monitor },
];

export function ThemeToggle() {
  const theme = useTheme();
  return (
    <ToggleGroup.Root
      type="single"
      value={theme}
      onValueChange={(v) => v && setTheme(v as Theme)}
      aria-label="Theme"
      className="inline-flex rounded-md border border-zinc-200 p-0.5 dark:border-zinc-800"
    >
      {choices.map(({ value, label, icon: Icon }) => (
        <ToggleGroup.Item
          key={value}
          value={value}
          aria-label={label}
          title={label}
          className="inline-flex size-7 items-center justify-center rounded text-zinc-500 dark:text-zinc-400 data-[state=on]:bg-zinc-200 data-[state=on]:text-zinc-900 dark:data-[state=on]:bg-zinc-700 dark:data-[state=on]:text-zinc-50"
        >
          <Icon className="size-4" aria-hidden />
        </ToggleGroup.Item>
      ))}
    </ToggleGroup.Root>
  );
}
