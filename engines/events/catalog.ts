import { z } from "zod";

/** One kind of event: its name, what it means, and the schema of `data.object`. */
export interface EventType {
  type: string;
  description: string;
  /** Schema of the object the event carries. */
  object: z.ZodType;
}

/** A resource's domain events beyond created/updated/deleted. */
export interface DomainEventSpec<TObject> {
  types: ReadonlyArray<{ type: string; description: string }>;
  /** The domain events a change produces, from the object before (undefined on create) and after. */
  derive(before: TObject | undefined, after: TObject): string[];
}

export interface CatalogSource {
  object: string;
  name: string;
  schemas: { object: z.ZodType };
  events?: DomainEventSpec<never>;
  lifecycle?: { eventTypes: ReadonlyArray<{ type: string; description: string }> };
}

/** Every event kind: CRUD events of each resource, its domain events, and `extra` platform ones. */
export function buildEventCatalog(
  resources: readonly CatalogSource[],
  extra: readonly EventType[] = [],
): EventType[] {
  const catalog: EventType[] = [];
  for (const resource of resources) {
    const { object } = resource;
    const schema = resource.schemas.object;
    catalog.push(
      { type: `${object}.created`, description: `A ${object} was created.`, object: schema },
      {
        type: `${object}.updated`,
        description: `A ${object} changed; see previous_attributes.`,
        object: schema,
      },
      {
        type: `${object}.deleted`,
        description: `A ${object} was deleted; the object as it was.`,
        object: schema,
      },
    );
    const domain = [...(resource.events?.types ?? []), ...(resource.lifecycle?.eventTypes ?? [])];
    for (const { type, description } of domain) catalog.push({ type, description, object: schema });
  }
  catalog.push(...extra);
  return catalog.sort((a, b) => a.type.localeCompare(b.type));
}

/** The JSON Schema of a whole event of this kind (Standard Webhooks payload). */
export function eventJsonSchema(eventType: EventType): unknown {
  const envelope = z.object({
    id: z.string(),
    object: z.literal("event"),
    type: z.literal(eventType.type),
    timestamp: z.string(),
    data: z.object({
      object: eventType.object,
      previous_attributes: z.record(z.string(), z.unknown()).optional(),
    }),
  });
  return z.toJSONSchema(envelope, { unrepresentable: "any" });
}
