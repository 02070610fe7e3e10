// The shape of a DTL config, checked before any task exists: a list of layers, each with its action,
// its sources and destinations, and settings whose JSON shape is fixed per action. What the shapes
// cannot say (names that join up, one save layer, no cycle, projects and classes that exist) is
// validate.ts's job.
import { Type, type Static, type TSchema } from 'typebox';
import { blurSettings } from './layers/pixels/blur.ts';
import { contrastBrightnessSettings } from './layers/pixels/contrast-brightness.ts';
import { cropSettings } from './layers/pixels/crop.ts';
import { flipSettings } from './layers/pixels/flip.ts';
import { instancesCropSettings } from './layers/pixels/instances-crop.ts';
import { noiseSettings } from './layers/pixels/noise.ts';
import { randomColorSettings } from './layers/pixels/random-color.ts';
import { resizeSettings } from './layers/pixels/resize.ts';
import { rotateSettings } from './layers/pixels/rotate.ts';
import { slidingWindowSettings } from './layers/pixels/sliding-window.ts';
import { SKELETON_METHODS } from './skeleton.ts';

/** Layers a config may hold, and names, lists and numbers within one, at most. */
export const MAX_LAYERS = 100;
const MAX_NAME = 255;
const MAX_LIST = 1000;

const Name = Type.String({ minLength: 1, maxLength: MAX_NAME });
const Names = Type.Array(Name, { maxItems: MAX_LIST });
const Seed = Type.Optional(Type.Union([Type.Integer(), Type.String({ maxLength: MAX_NAME })], { description: 'seeds the layer’s randomness; default: the task id' }));
/** A class mapping: source title (or `__other__`) → new title, `__default__` (the same) or `__ignore__`. */
const Mapping = Type.Record(Type.String({ minLength: 1, maxLength: MAX_NAME }), Name, { maxProperties: MAX_LIST });

const settings = <P extends Record<string, TSchema>>(properties: P) => Type.Object({ ...properties, seed: Seed }, { additionalProperties: false });

// Conditions of `if`, one key each.
const Condition = Type.Union([
  Type.Object({ probability: Type.Number({ minimum: 0, maximum: 1 }) }, { additionalProperties: false }),
  Type.Object({ regex_names: Type.Array(Type.String({ maxLength: 1000 }), { minItems: 1, maxItems: 100 }) }, { additionalProperties: false }),
  Type.Object({ project_datasets: Type.Array(Type.String({ pattern: '^[^/]+/[^/]+$', maxLength: 2 * MAX_NAME + 1 }), { minItems: 1, maxItems: MAX_LIST }) }, { additionalProperties: false }),
  Type.Object({ min_objects_count: Type.Integer({ minimum: 0 }) }, { additionalProperties: false }),
  Type.Object({ include_classes: Type.Array(Name, { minItems: 1, maxItems: MAX_LIST }) }, { additionalProperties: false }),
  Type.Object({ tags: Type.Array(Name, { minItems: 1, maxItems: MAX_LIST }) }, { additionalProperties: false }),
  Type.Object({ min_height: Type.Integer({ minimum: 0 }) }, { additionalProperties: false }),
  Type.Object({ min_width: Type.Integer({ minimum: 0 }) }, { additionalProperties: false }),
  Type.Object({ min_area: Type.Integer({ minimum: 0 }) }, { additionalProperties: false }),
  Type.Object({ sum_object_area: Type.Number({ minimum: 0 }), classes: Names }, { additionalProperties: false }),
]);

/** The layout of a Supervisely project written by `save` and `save_masks` (formats/supervisely/writer.ts). */
const SuperviselyLayout = Type.Optional(Type.Union([Type.Literal('current'), Type.Literal('2018')]));

/** An RGB colour, three values 0–255, as the 2018 DTL gave colours. */
const Color = Type.Array(Type.Integer({ minimum: 0, maximum: 255 }), { minItems: 3, maxItems: 3 });
/** Class title → colour. */
const ColorMap = Type.Record(Type.String({ minLength: 1, maxLength: MAX_NAME }), Color, { maxProperties: MAX_LIST });

/** Settings of the data, annotation and output layers, by action. */
export const LAYER_SETTINGS = {
  data: Type.Object(
    {
      classes_mapping: Type.Union([Type.Literal('default'), Mapping]),
      version: Type.Optional(
        Type.Union([Type.Integer({ minimum: 1, maximum: 2_147_483_647 }), Type.String({ minLength: 1, maxLength: MAX_NAME })], {
          description: 'read this version of the project (its id, or its name) instead of the project as it is now',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  rename: settings({ classes_mapping: Mapping }),
  drop_obj_by_class: settings({ classes: Names }),
  duplicate_objects: settings({ classes_mapping: Mapping }),
  bbox: settings({ classes_mapping: Mapping }),
  bbox2poly: settings({ classes_mapping: Mapping }),
  approx_vector: settings({ classes: Names, epsilon: Type.Number({ exclusiveMinimum: 0, maximum: 1e6 }) }),
  poly2bitmap: settings({ classes_mapping: Mapping }),
  rasterize: settings({ classes_mapping: Mapping }),
  find_contours: settings({ classes_mapping: Mapping }),
  line2bitmap: settings({ classes_mapping: Mapping, width: Type.Integer({ minimum: 1, maximum: 1000 }) }),
  skeletonize: settings({ classes: Names, method: Type.Union(SKELETON_METHODS.map((m) => Type.Literal(m))) }),
  color_class: settings({ classes_color_mapping: Type.Record(Type.String({ minLength: 1, maxLength: MAX_NAME }), Type.String({ pattern: '^#[0-9A-Fa-f]{6}$' }), { maxProperties: MAX_LIST }) }),
  drop_lines_by_length: settings({
    lines_class: Name,
    min_length: Type.Optional(Type.Number({ minimum: 0 })),
    max_length: Type.Optional(Type.Number({ minimum: 0 })),
    invert: Type.Optional(Type.Boolean()),
    resolution_compensation: Type.Optional(Type.Boolean()),
  }),
  merge_bitmap_masks: settings({ class: Name }),
  generate_hints: settings({ class: Name, positive_class: Name, negative_class: Name, min_points_number: Type.Integer({ minimum: 0, maximum: 10_000 }) }),
  bitwise_masks: settings({ type: Type.Union([Type.Literal('and'), Type.Literal('or'), Type.Literal('nor')]), class_mask: Name, classes_to_correct: Names }),
  bitmap2lines: settings({ classes_mapping: Mapping, min_points_cnt: Type.Integer({ minimum: 2 }), approx_epsilon: Type.Optional(Type.Number({ minimum: 0, maximum: 1e6 })) }),
  split_masks: settings({ classes: Names }),
  drop_noise: settings({ classes: Names, min_area: Type.String({ pattern: '^[0-9]+(\\.[0-9]+)?(px|%)$', maxLength: 32 }), src_type: Type.Union([Type.Literal('image'), Type.Literal('bbox')]) }),
  objects_filter: settings({
    filter_by: Type.Object(
      {
        polygon_sizes: Type.Object(
          {
            filtering_classes: Names,
            action: Type.Union([Type.Literal('delete'), Type.Literal('keep')]),
            comparator: Type.Union([Type.Literal('less'), Type.Literal('greater')]),
            // A number of pixels; or, as in 2018, {percent} of the image's area or {width, height} of the box.
            area_size: Type.Optional(
              Type.Union([
                Type.Number({ minimum: 0 }),
                Type.Object({ percent: Type.Number({ minimum: 0, maximum: 100 }) }, { additionalProperties: false }),
                Type.Object({ width: Type.Number({ minimum: 0 }), height: Type.Number({ minimum: 0 }) }, { additionalProperties: false }),
              ]),
            ),
            width: Type.Optional(Type.Number({ minimum: 0 })),
            height: Type.Optional(Type.Number({ minimum: 0 })),
          },
          { additionalProperties: false },
        ),
      },
      { additionalProperties: false },
    ),
  }),
  background: settings({ class: Name }),
  tag: settings({ tag: Type.Union([Name, Type.Object({ name: Name, value: Type.Union([Type.Null(), Type.Number(), Type.String({ maxLength: 1000 })]) }, { additionalProperties: false })]), action: Type.Union([Type.Literal('add'), Type.Literal('delete')]) }),
  dataset: Type.Union([settings({ name: Name }), settings({ rule: Type.Literal('save_original') })]),
  if: settings({ condition: Condition }),
  multiply: settings({ multiply: Type.Integer({ minimum: 1, maximum: 100 }) }),
  dummy: settings({}),
  // Pixel layers: the schemas the layers themselves bring (layers/pixels/).
  resize: resizeSettings,
  crop: cropSettings,
  flip: flipSettings,
  rotate: rotateSettings,
  instances_crop: instancesCropSettings,
  sliding_window: slidingWindowSettings,
  blur: blurSettings,
  contrast_brightness: contrastBrightnessSettings,
  noise: noiseSettings,
  random_color: randomColorSettings,
  // Outputs.
  save: Type.Object(
    { images: Type.Optional(Type.Boolean()), annotations: Type.Optional(Type.Boolean()), visualize: Type.Optional(Type.Boolean()), only_annotated: Type.Optional(Type.Boolean()), layout: SuperviselyLayout },
    { additionalProperties: false },
  ),
  save_masks: Type.Object(
    {
      images: Type.Optional(Type.Boolean()),
      masks_machine: Type.Optional(Type.Boolean()),
      masks_human: Type.Optional(Type.Boolean()),
      only_annotated: Type.Optional(Type.Boolean()),
      gt_machine_color: Type.Optional(ColorMap),
      gt_human_color: Type.Optional(ColorMap),
      layout: SuperviselyLayout,
    },
    { additionalProperties: false },
  ),
  supervisely: Type.Object({ only_annotated: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
  coco: Type.Object({ images: Type.Optional(Type.Boolean()), only_annotated: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
  yolo: Type.Object(
    {
      images: Type.Optional(Type.Boolean()),
      only_annotated: Type.Optional(Type.Boolean()),
      task: Type.Optional(Type.Union([Type.Literal('detect'), Type.Literal('segment')])),
      splits_from_datasets: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: false },
  ),
  pascal_voc: Type.Object({ images: Type.Optional(Type.Boolean()), only_annotated: Type.Optional(Type.Boolean()), segmentation: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
} satisfies Record<string, TSchema>;

export type Action = keyof typeof LAYER_SETTINGS;
export type SettingsOf<A extends Action> = Static<(typeof LAYER_SETTINGS)[A]>;

export const OUTPUT_ACTIONS = ['save', 'save_masks', 'supervisely', 'coco', 'yolo', 'pascal_voc'] as const satisfies readonly Action[];
export type OutputAction = (typeof OUTPUT_ACTIONS)[number];

export const PIXEL_ACTIONS = ['resize', 'crop', 'flip', 'rotate', 'instances_crop', 'sliding_window', 'blur', 'contrast_brightness', 'noise', 'random_color'] as const satisfies readonly Action[];

export const isAction = (value: string): value is Action => Object.hasOwn(LAYER_SETTINGS, value);
export const isOutput = (action: Action): action is OutputAction => (OUTPUT_ACTIONS as readonly string[]).includes(action);

/** `$name` (a stream of items) or `null` (a dead end); the data layer's sources and the output's dst are other names. */
const Src = Type.String({ minLength: 1, maxLength: 2 * MAX_NAME + 1 });

/** One layer as a config holds it; its settings are checked against its action's schema afterwards. */
export const Layer = Type.Object(
  {
    action: Type.String({ minLength: 1, maxLength: 64 }),
    src: Type.Union([Src, Type.Array(Src, { minItems: 1, maxItems: MAX_LIST })]),
    dst: Type.Union([Src, Type.Array(Src, { minItems: 1, maxItems: 2 })]),
    settings: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { additionalProperties: false },
);
export type LayerT = Static<typeof Layer>;

export const DtlConfig = Type.Array(Layer, { minItems: 2, maxItems: MAX_LAYERS, description: 'a DTL graph: data layers, processing layers, one output layer (docs/dtl.md)' });
export type DtlConfigT = Static<typeof DtlConfig>;
