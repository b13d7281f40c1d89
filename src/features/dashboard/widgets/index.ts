import type { DashboardWidgetType } from "@/shared/dashboard";
import { AudioWidget } from "./audio";
import { ButtonWidget } from "./button";
import { ButtonGroupWidget } from "./button-group";
import { ChartWidget } from "./chart";
import { DropdownWidget } from "./dropdown";
import { FileInputWidget } from "./file-input";
import { FormWidget } from "./form";
import { GaugeWidget } from "./gauge";
import { IframeWidget } from "./iframe";
import { LedWidget } from "./led";
import { MarkdownWidget } from "./markdown";
import { NumberInputWidget } from "./number-input";
import { ProgressWidget } from "./progress";
import { RadioGroupWidget } from "./radio-group";
import { SliderWidget } from "./slider";
import { SpacerWidget } from "./spacer";
import { SwitchWidget } from "./switch";
import { TableWidget } from "./table";
import { TemplateWidget } from "./template";
import { TextInputWidget } from "./text-input";
import { TextWidget } from "./text";
import type { WidgetComponent } from "./widget";

/**
 * The component of each widget type with a place on the page (Dashboard 2.0 pairs each widget
 * node with one client component). ui-notification, ui-control and ui-event are headless: the
 * page handles them (notifications.tsx, dashboard-store.ts's control, dashboard-app.tsx's page
 * events).
 */
export const WIDGET_COMPONENTS: Partial<Record<DashboardWidgetType, WidgetComponent>> = {
  "ui-button": ButtonWidget,
  "ui-text": TextWidget,
  "ui-text-input": TextInputWidget,
  "ui-number-input": NumberInputWidget,
  "ui-switch": SwitchWidget,
  "ui-slider": SliderWidget,
  "ui-dropdown": DropdownWidget,
  "ui-radio-group": RadioGroupWidget,
  "ui-button-group": ButtonGroupWidget,
  "ui-form": FormWidget,
  "ui-file-input": FileInputWidget,
  "ui-chart": ChartWidget,
  "ui-gauge": GaugeWidget,
  "ui-audio": AudioWidget,
  "ui-progress": ProgressWidget,
  "ui-led": LedWidget,
  "ui-table": TableWidget,
  "ui-markdown": MarkdownWidget,
  "ui-template": TemplateWidget,
  "ui-iframe": IframeWidget,
  "ui-spacer": SpacerWidget,
};

/** Rows a widget of height 0 ("auto") takes, as Dashboard 2.0's Group.vue computes them. */
export function autoRows(type: DashboardWidgetType, props: Record<string, unknown>): number {
  if (type === "ui-chart") return 8;
  if (type === "ui-form") return Math.ceil((Array.isArray(props.options) ? props.options.length : 1) / (props.splitLayout ? 2 : 1)) + 2;
  if (type === "ui-gauge") return props.gtype === "gauge-34" ? 4 : props.gtype === "gauge-tile" || props.gtype === "gauge-battery" ? 2 : 3;
  if (type === "ui-table") return 4;
  return 1;
}
