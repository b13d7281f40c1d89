"use client";

import { createContext, type ComponentType } from "react";
import type { Catalog } from "../model";

/** What the node form hands the field of a property that names a configuration node (SPEC §19). */
export interface ConfigRefFieldProps {
  /** The field's element id (the form's `cfg-<path>`), so its label and errors tie to it. */
  id: string;
  label: string;
  description?: string;
  /** The configuration-node type the property names (the schema's CONFIG_REF_KEY). */
  type: string;
  value: string;
  required: boolean;
  error?: string;
  onChange: (id: string) => void;
}

/**
 * The component that renders a configuration-node reference inside SchemaForm. A context, not an
 * import: the picker opens the configuration node's own form, which is a SchemaForm again (an
 * mqtt-broker names a tls-config), and the form must not import its picker back. FlowEditor
 * provides the picker; without one the form shows the id as text.
 */
export const ConfigRefFieldContext = createContext<ComponentType<ConfigRefFieldProps> | null>(null);

/** The node catalog, for a configuration type's description and declared credentials in its dialog. */
export const ConfigCatalogContext = createContext<Catalog>(new Map());
