//! Form pieces the settings dialogs share: a number field that may stay empty (inherit), the four
//! search-default fields, and a select for a switch that can go back to its variable.
import type { ReactNode } from "react";
import { Field, Input, inputClass } from "../../components/ui/form";
import { HOOK_FIELDS, type Draft, type HookKey } from "./settingsForm";

export function NumberField({ label, hint, value, onChange, placeholder, error, step }: { label: string; hint?: ReactNode; value: string; onChange: (v: string) => void; placeholder?: string; error?: ReactNode; step?: string }) {
  return (
    <Field label={label} hint={hint} error={error}>
      {(ids) => <Input {...ids} inputMode="decimal" step={step} value={value} placeholder={placeholder} onChange={(e) => onChange(e.target.value)} />}
    </Field>
  );
}

export interface HookFieldsProps {
  draft: Draft;
  onChange: (key: HookKey, value: string) => void;
  errors: Record<string, string>;
  /** The inherited value an empty field stands for, e.g. "Server: 4". */
  placeholder: (key: HookKey) => string;
  /** A warning under the minimum score, when the value in effect is too low. */
  minScoreWarning?: ReactNode;
}

export function HookFields({ draft, onChange, errors, placeholder, minScoreWarning }: HookFieldsProps) {
  return (
    <div className="grid gap-4 sm:grid-cols-2">
      {HOOK_FIELDS.map((f) => (
        <NumberField
          key={f.key}
          label={f.label}
          hint={f.hint}
          value={draft[f.key] ?? ""}
          onChange={(v) => onChange(f.key, v)}
          placeholder={placeholder(f.key)}
          step={f.rule.integer ? "1" : "0.01"}
          error={errors[f.key] ?? (f.key === "min_score" ? minScoreWarning : undefined)}
        />
      ))}
    </div>
  );
}

/** A switch with three states: the variable's value (""), saved on ("true") or saved off ("false"). */
export function FlagSelect({ label, hint, env, envValue, value, onChange }: { label: string; hint?: ReactNode; env: string; envValue: boolean; value: string; onChange: (v: string) => void }) {
  return (
    <Field
      label={label}
      hint={
        <>
          {hint} <span className="font-mono">{env}</span>
        </>
      }
    >
      {(ids) => (
        <select {...ids} className={inputClass} value={value} onChange={(e) => onChange(e.target.value)}>
          <option value="">Variable: {envValue ? "on" : "off"}</option>
          <option value="true">On</option>
          <option value="false">Off</option>
        </select>
      )}
    </Field>
  );
}
