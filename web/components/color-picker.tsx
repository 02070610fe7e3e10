// A class's colour: the palette made for many classes (those the project's other classes already
// have marked as taken), or any colour from the browser's own picker.
import { CLASS_PALETTE, TOO_CLOSE, colorDistance } from '../../src/formats/class-colors.ts';

interface Props {
  value: string;
  onChange: (color: string) => void;
  /** The colours of the project's other classes. */
  taken: string[];
  /** Names the group for screen readers ("Colour of car"). */
  label: string;
}

export function ColorPicker(props: Props) {
  const value = props.value.toLowerCase();
  const isTaken = (color: string) => props.taken.some((t) => colorDistance(t, color) < TOO_CLOSE);
  // One stop in the tab order (the chosen colour, else the first); the arrows move the choice, as in
  // any radio group.
  const chosen = CLASS_PALETTE.indexOf(value);
  const step = (event: KeyboardEvent) => {
    const moves: Record<string, number> = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
    if (!(event.key in moves) && event.key !== 'Home' && event.key !== 'End') return;
    event.preventDefault();
    const n = CLASS_PALETTE.length;
    const next = event.key === 'Home' ? 0 : event.key === 'End' ? n - 1 : (Math.max(chosen, 0) + moves[event.key]! + n) % n;
    props.onChange(CLASS_PALETTE[next]!);
    const group = event.currentTarget as HTMLElement;
    (group.children[next] as HTMLElement | undefined)?.focus();
  };
  return (
    <fieldset class="color-picker">
      <legend>{props.label}</legend>
      <div class="palette" role="radiogroup" aria-label={`${props.label}: palette`} onKeyDown={step}>
        {CLASS_PALETTE.map((color, i) => {
          const taken = isTaken(color);
          return (
            <button
              key={color}
              type="button"
              role="radio"
              aria-checked={value === color}
              tabIndex={i === Math.max(chosen, 0) ? 0 : -1}
              aria-label={`${color}${taken ? ' (like another class’s)' : ''}`}
              title={taken ? `${color}: another class has this colour or one like it` : color}
              class={`palette-swatch${taken ? ' taken' : ''}`}
              style={{ background: color }}
              onClick={() => props.onChange(color)}
            />
          );
        })}
      </div>
      <label class="custom-color">
        Other colour
        <input type="color" value={/^#[0-9a-f]{6}$/.test(value) ? value : '#000000'} onInput={(e) => props.onChange((e.currentTarget as HTMLInputElement).value)} />
        <code>{value}</code>
      </label>
    </fieldset>
  );
}
