import { z } from "zod";
import { AmountSchema, CurrencySchema, MetadataSchema, text } from "../fields.ts";
import { baseFields, mergeMetadata, type ResourceDefinition, type ResourceRow } from "../resource.ts";

export const ProductSchema = z
  .object({
    id: z.string().meta({ example: "prod_3kTqZ9" }),
    object: z.literal("product"),
    name: z.string(),
    sku: z.string().nullable(),
    description: z.string().nullable(),
    price: z.number().meta({ description: "Unit price, exact decimal" }),
    currency: z.string(),
    active: z.boolean(),
    metadata: z.record(z.string(), z.string()),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Product" });
export type Product = z.infer<typeof ProductSchema>;

export const ProductCreateSchema = z
  .object({
    name: text(200),
    sku: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9._-]{1,64}$/, "must be 1-64 of A-Z a-z 0-9 . _ -")
      .nullish(),
    description: z.string().max(2000).nullish(),
    price: AmountSchema,
    currency: CurrencySchema,
    active: z.boolean().optional(),
    metadata: MetadataSchema.optional(),
  })
  .strict();
export type ProductCreate = z.infer<typeof ProductCreateSchema>;

export const ProductUpdateSchema = ProductCreateSchema.partial().strict();
export type ProductUpdate = z.infer<typeof ProductUpdateSchema>;

/** A `products` row as the store returns it (migration 0002). */
export interface ProductRow extends ResourceRow {
  name: string;
  sku: string | null;
  description: string | null;
  /** numeric: exact, as a string */
  price: string;
  /** char(3) */
  currency: string;
  active: boolean;
}

export const products: ResourceDefinition<Product, ProductCreate, ProductUpdate, ProductRow> = {
  name: "products",
  object: "product",
  prefix: "prod",
  engine: "finance",
  schemas: { object: ProductSchema, create: ProductCreateSchema, update: ProductUpdateSchema },
  columns: {
    name: "text",
    sku: "text",
    description: "text",
    price: "numeric",
    currency: "text",
    active: "boolean",
  },
  sorts: { created_at: "created_at", updated_at: "updated_at", name: "name", price: "price", sku: "sku" },
  search: ["name", "sku", "description"],
  filters: {
    active: { kind: "boolean" },
    currency: { kind: "equals" },
    sku: { kind: "equals" },
  },
  create: (input) => ({
    name: input.name,
    sku: input.sku ?? null,
    description: input.description ?? null,
    price: input.price,
    currency: input.currency,
    active: input.active ?? true,
    metadata: input.metadata ?? {},
  }),
  update: (row, patch) => ({
    name: patch.name,
    sku: patch.sku,
    description: patch.description,
    price: patch.price,
    currency: patch.currency,
    active: patch.active,
    metadata: mergeMetadata(row.metadata, patch.metadata),
  }),
  render: (row) => ({
    ...baseFields(row, "product"),
    object: "product",
    name: row.name,
    sku: row.sku ?? null,
    description: row.description ?? null,
    price: Number(row.price),
    currency: row.currency.trim(),
    active: row.active,
    metadata: row.metadata,
  }),
};
