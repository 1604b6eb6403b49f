'use client';

import './models.css';
import { ChevronDown } from 'lucide-react';
import { formatCountShort } from '@/lib/format/numbers';
import type { ModelsResponse } from '@/lib/providers/listing';
import { qualifierOf } from '@/lib/providers/modelId';

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
  // One group per provider instance: the server's OpenAI and an OpenAI key entered in this browser are two groups.
  const byProvider = new Map<string, typeof models>();
  for (const m of models) byProvider.set(qualifierOf(m), [...(byProvider.get(qualifierOf(m)) ?? []), m]);
  const label = (q: string) => data?.providers.find((x) => qualifierOf({ provider: x.id, instance: x.instance }) === q)?.label ?? q;
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
