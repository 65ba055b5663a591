/**
 * Which source may set a client attribute. A client's name, MRR, renewal date, CSM owner and
 * exclusion come from the most authoritative source that has them:
 *
 *   manual (PATCH /clients/{id}, `chs clients import`) > hubspot > intercom > domain (mail)
 *
 * Each attribute keeps the source of its value (`name_source`, `mrr_source`, `renewal_source`,
 * `csm_source`, `excluded_source`; null when no source holds it). A source may set an attribute
 * held by a source of the same or a lower rank, or by none; it never overwrites a higher one. A
 * source that says nothing about an attribute (undefined) leaves it as it is.
 *
 * A null offered for a nullable attribute (only PATCH does: `"mrr": null`) clears the value and
 * releases the attribute: its source becomes null, so the next sync of any provider that has a
 * value fills it again. That is how a hand-set value is handed back to the CRM. The name cannot be
 * cleared; exclusion is a flag (false is a value, kept with its source).
 */
import type { ClientsTable } from '../store/schema.js';

/** Known sources, most authoritative first. */
const ATTRIBUTE_SOURCES = ['manual', 'hubspot', 'intercom', 'domain'] as const;
type AttributeSource = (typeof ATTRIBUTE_SOURCES)[number];

/** Higher is more authoritative; 0 for no source (null) or one this list does not know. */
export function sourceRank(source: string | null | undefined): number {
  const i = ATTRIBUTE_SOURCES.indexOf(source as AttributeSource);
  return i < 0 ? 0 : ATTRIBUTE_SOURCES.length - i;
}

/** May `candidate` set an attribute whose value came from `current`? */
function mayOverwrite(candidate: string, current: string | null | undefined): boolean {
  return sourceRank(candidate) >= sourceRank(current);
}

/** The columns of a client row the rule governs. */
export type AttributeColumns = Pick<
  ClientsTable,
  'name' | 'name_source' | 'mrr' | 'mrr_source' | 'renewal_date' | 'renewal_source' | 'csm_owner' | 'csm_source' | 'is_excluded' | 'excluded_source'
>;

/** What one source says about a client; undefined: it says nothing about that attribute. */
export interface AttributeOffer {
  name?: string | undefined;
  /** null clears (releases) the attribute. */
  mrr?: number | null | undefined;
  renewalDate?: string | null | undefined;
  csmOwner?: string | null | undefined;
  isExcluded?: boolean | undefined;
}

/**
 * The columns to write so that the row reflects `offer` from `source` where the rule lets it;
 * empty when nothing changes. Taking over an attribute with an equal value changes only its
 * source (a later, lower source then cannot replace it).
 */
export function attributePatch(current: AttributeColumns, offer: AttributeOffer, source: string): Partial<AttributeColumns> {
  const patch: Partial<AttributeColumns> = {};
  const settle = <V extends string | number | null>(
    value: V | undefined,
    held: V,
    heldBy: string | null,
    set: (value: V, by: string | null) => void,
    clears: boolean,
  ): void => {
    if (value === undefined || !mayOverwrite(source, heldBy)) return;
    const by = value === null && clears ? null : source;
    if (value !== held || by !== heldBy) set(value, by);
  };
  settle(
    offer.name,
    current.name,
    current.name_source,
    (v, by) => {
      if (v !== current.name) patch.name = v;
      patch.name_source = by ?? source;
    },
    false,
  );
  settle(
    offer.mrr,
    current.mrr,
    current.mrr_source,
    (v, by) => {
      if (v !== current.mrr) patch.mrr = v;
      if (by !== current.mrr_source) patch.mrr_source = by;
    },
    true,
  );
  settle(
    offer.renewalDate,
    current.renewal_date,
    current.renewal_source,
    (v, by) => {
      if (v !== current.renewal_date) patch.renewal_date = v;
      if (by !== current.renewal_source) patch.renewal_source = by;
    },
    true,
  );
  settle(
    offer.csmOwner,
    current.csm_owner,
    current.csm_source,
    (v, by) => {
      if (v !== current.csm_owner) patch.csm_owner = v;
      if (by !== current.csm_source) patch.csm_source = by;
    },
    true,
  );
  settle(
    offer.isExcluded === undefined ? undefined : offer.isExcluded ? 1 : 0,
    current.is_excluded,
    current.excluded_source,
    (v, by) => {
      if (v !== current.is_excluded) patch.is_excluded = v;
      if (by !== current.excluded_source) patch.excluded_source = by;
    },
    false,
  );
  return patch;
}

/** The sources a new client row records for the attributes it is created with. */
export function initialSources(
  values: { mrr: number | null; renewalDate: string | null; csmOwner: string | null },
  source: string,
): Pick<AttributeColumns, 'mrr_source' | 'renewal_source' | 'csm_source'> {
  return {
    mrr_source: values.mrr === null ? null : source,
    renewal_source: values.renewalDate === null ? null : source,
    csm_source: values.csmOwner === null ? null : source,
  };
}
