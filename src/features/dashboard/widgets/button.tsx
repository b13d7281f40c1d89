"use client";

import { useRef, type KeyboardEvent, type PointerEvent } from "react";
import { substitute } from "../format";
import { Icon } from "./icon";
import { bool, str, type WidgetProps } from "./widget";

/** Dashboard 2.0's msg._event: the event's type and where it happened on the button. */
function eventOf(type: string, target: Element, at?: { clientX: number; clientY: number }) {
  const r = target.getBoundingClientRect();
  return {
    type,
    ...(at ? { clientX: at.clientX, clientY: at.clientY } : {}),
    bbox: { x: r.x, y: r.y, width: r.width, height: r.height, top: r.top, right: r.right, bottom: r.bottom, left: r.left },
  };
}

/**
 * ui-button: a click sends the node's payload (the node evaluates it, with `msg._client`); a "hold"
 * button also sends when pressed and when let go (Dashboard 2.0's pointerdown / pointerup), by
 * pointer or by Enter and Space.
 */
export function ButtonWidget({ props, state, interactive, send, inputId }: WidgetProps) {
  const label = substitute(str(props, "label", "Button"), state.msg);
  const icon = str(props, "icon");
  const iconRight = str(props, "iconPosition") === "right";
  const onDown = bool(props, "enablePointerdown", false);
  const onUp = bool(props, "enablePointerup", false);
  // A press that ends off the button is not a click (as Dashboard 2.0's): the pointer is captured, so its release still comes here.
  const over = useRef(true);
  const keyHeld = useRef(false);
  const background = str(props, "buttonColor") || str(props, "bgcolor");
  const style = {
    ...(background ? { background, borderColor: background } : {}),
    ...(str(props, "textColor") || str(props, "color") ? { color: str(props, "textColor") || str(props, "color") } : {}),
  };
  const iconColor = str(props, "iconColor");
  const iconEl = icon ? <Icon name={icon} style={iconColor ? { color: iconColor } : undefined} /> : null;
  const isHoldKey = (e: KeyboardEvent) => e.key === "Enter" || e.key === " ";
  return (
    <button
      id={inputId}
      type="button"
      className="db-button"
      style={style}
      disabled={!interactive || bool(props, "enabled", true) === false}
      onClick={(e) => {
        if (!over.current) return;
        send("click", { _event: eventOf("click", e.currentTarget, e.detail > 0 ? e : undefined) });
      }}
      onPointerDown={(e: PointerEvent<HTMLButtonElement>) => {
        over.current = true;
        if (!onDown) return;
        e.currentTarget.setPointerCapture?.(e.pointerId);
        send("pointerdown", { _event: eventOf("pointerdown", e.currentTarget, e) });
      }}
      onPointerMove={(e: PointerEvent<HTMLButtonElement>) => {
        const r = e.currentTarget.getBoundingClientRect();
        over.current = e.clientX >= r.left && e.clientX <= r.right && e.clientY >= r.top && e.clientY <= r.bottom;
      }}
      onPointerUp={(e: PointerEvent<HTMLButtonElement>) => {
        if (!onUp) return;
        e.currentTarget.releasePointerCapture?.(e.pointerId);
        send("pointerup", { _event: eventOf("pointerup", e.currentTarget, e) });
      }}
      onKeyDown={(e) => {
        if (!isHoldKey(e) || e.repeat || keyHeld.current) return;
        keyHeld.current = true;
        over.current = true;
        if (onDown) send("pointerdown", { _event: eventOf("pointerdown", e.currentTarget) });
      }}
      onKeyUp={(e) => {
        if (!isHoldKey(e) || !keyHeld.current) return;
        keyHeld.current = false;
        if (onUp) send("pointerup", { _event: eventOf("pointerup", e.currentTarget) });
      }}
      onBlur={() => {
        // Focus left while a key held it down: it was let go.
        if (keyHeld.current && onUp) send("pointerup", { _event: { type: "pointerup" } });
        keyHeld.current = false;
      }}
    >
      {iconRight ? null : iconEl}
      <span>{label}</span>
      {iconRight ? iconEl : null}
    </button>
  );
}
