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
  return (
    <fieldset class="color-picker">
      <legend>{props.label}</legend>
      <div class="palette" role="radiogroup" aria-label={`${props.label}: palette`}>
        {CLASS_PALETTE.map((color) => {
          const taken = isTaken(color);
          return (
            <button
              key={color}
              type="button"
              role="radio"
              aria-checked={value === color}
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
