"use client";

import type { ReactNode } from "react";
import type { Catalog } from "../model";
import { ConfigNodePicker } from "./config-node-picker";
import { ConfigCatalogContext, ConfigRefFieldContext } from "./config-ref-slot";
import "./config-nodes.css";

/** Configuration nodes in the editor (SPEC §19): node forms show the picker for references, dialogs read the catalog. */
export function ConfigNodesProvider({ catalog, children }: { catalog: Catalog; children: ReactNode }) {
  return (
    <ConfigCatalogContext.Provider value={catalog}>
      <ConfigRefFieldContext.Provider value={ConfigNodePicker}>{children}</ConfigRefFieldContext.Provider>
    </ConfigCatalogContext.Provider>
  );
}
