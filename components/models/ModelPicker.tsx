'use client';

import './models.css';
import { ChevronDown } from 'lucide-react';
import { formatCountShort } from '@/lib/format/numbers';
import type { ModelsResponse } from '@/lib/providers/listing';

export function ModelPicker({ data, value, onChange }: { data: ModelsResponse | undefined; value: string | undefined; onChange: (id: string) => void }) {
  const models = data?.models ?? [];
  if (models.length === 0)
    return (
      <span className="model-select">
        <select className="model-picker" aria-label="Model" disabled value="">
          <option value="">No model connected</option>
        </select>
        <ChevronDown aria-hidden="true" className="icon" />
      </span>
    );
  const byProvider = new Map<string, typeof models>();
  for (const m of models) byProvider.set(m.provider, [...(byProvider.get(m.provider) ?? []), m]);
  const label = (p: string) => data?.providers.find((x) => x.id === p)?.label ?? p;
  return (
    <span className="model-select">
      <select className="model-picker" aria-label="Model" value={value ?? ''} onChange={(e) => onChange(e.target.value)}>
        {[...byProvider].map(([provider, ms]) => (
          <optgroup key={provider} label={label(provider)}>
            {ms.map((m) => (
              <option key={m.id} value={m.id}>
                {m.name} · {formatCountShort(m.contextWindow)}
                {m.contextWindowSource === 'fallback' ? ' (assumed)' : ''}
              </option>
            ))}
          </optgroup>
        ))}
      </select>
      <ChevronDown aria-hidden="true" className="icon" />
    </span>
  );
}
