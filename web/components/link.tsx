// An in-app link: a real <a href> (open in a new tab, copy the address) that changes page in place.
import type { ComponentChildren } from 'preact';
import { followLink } from '../router.ts';

export function Link(props: { href: string; class?: string; children: ComponentChildren; 'aria-current'?: 'page' | undefined; title?: string }) {
  return (
    <a href={props.href} class={props.class} onClick={followLink} aria-current={props['aria-current']} title={props.title}>
      {props.children}
    </a>
  );
}
