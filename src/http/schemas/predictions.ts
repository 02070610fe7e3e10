// Schemas of /v2/images/:id/predictions: a model's objects beside the annotation, each with a score.
import { Type } from 'typebox';
import { MAX_OBJECTS_PER_ANNOTATION } from '../../formats/supervisely/index.ts';
import { Point } from './resources.ts';

export const MAX_MODEL_NAME = 200;

const ModelName = Type.String({ minLength: 1, maxLength: MAX_MODEL_NAME, description: 'the model’s name, as the team calls it' });
const Score = Type.Number({ minimum: 0, maximum: 1, description: 'the model’s confidence, 0 to 1' });
const Bitmap = Type.Object({ origin: Type.Array(Type.Integer(), { minItems: 2, maxItems: 2 }), data: Type.String() }, { additionalProperties: false });

const PredictionInput = Type.Object(
  {
    classTitle: Type.Optional(Type.String({ minLength: 1, description: 'a class of the project (or give classId)' })),
    classId: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'a class of the project (or give classTitle)' })),
    geometryType: Type.Optional(Type.String({ description: 'if given, the class’s shape' })),
    points: Type.Optional(Type.Object({ exterior: Type.Array(Point), interior: Type.Optional(Type.Array(Type.Array(Point))) }, { additionalProperties: false })),
    bitmap: Type.Optional(Type.Union([Type.Null(), Bitmap])),
    score: Score,
  },
  { additionalProperties: false },
);

export const PredictionsBody = Type.Object(
  { model: ModelName, objects: Type.Array(PredictionInput, { maxItems: MAX_OBJECTS_PER_ANNOTATION }) },
  { additionalProperties: false },
);

export const PredictionsQuery = Type.Object({ model: Type.Optional(ModelName) }, { additionalProperties: false });

const Prediction = Type.Object({
  index: Type.Integer({ minimum: 0, description: 'the position in the model’s list (highest score first); changes when the list is replaced' }),
  classId: Type.Integer(),
  classTitle: Type.String(),
  geometryType: Type.String(),
  bitmap: Type.Union([Type.Null(), Bitmap]),
  points: Type.Object({ exterior: Type.Array(Point), interior: Type.Array(Type.Array(Point)) }),
  score: Type.Number(),
});

export const ModelPredictions = Type.Object({
  model: Type.String(),
  updatedAt: Type.String({ format: 'date-time' }),
  objects: Type.Array(Prediction),
});

export const ImagePredictions = Type.Object({ imageId: Type.Integer(), models: Type.Array(ModelPredictions) });

const Id = Type.Integer({ minimum: 1, maximum: 2_147_483_647 });
const Figure = Type.Union([Type.Number(), Type.Null()], { description: 'null when no ground truth counts' });

export const EvaluationParams = Type.Object({ projectId: Id });

export const EvaluationQuery = Type.Object(
  {
    model: ModelName,
    iouType: Type.Optional(Type.Union([Type.Literal('bbox'), Type.Literal('segm')], { default: 'bbox', description: 'compare boxes or masks' })),
    datasetId: Type.Optional({ ...Id, description: 'evaluate this dataset of the project only' }),
  },
  { additionalProperties: false },
);

export const ProjectModels = Type.Object({
  items: Type.Array(
    Type.Object({
      model: Type.String(),
      images: Type.Integer({ description: 'images of the project with predictions of the model' }),
      objects: Type.Integer({ description: 'predicted objects of the model in the project' }),
    }),
    { description: 'by model name' },
  ),
});

export const Evaluation = Type.Object({
  projectId: Type.Integer(),
  datasetId: Type.Union([Type.Integer(), Type.Null()]),
  model: Type.String(),
  iouType: Type.String(),
  imageCount: Type.Integer({ description: 'images evaluated: every image of the project or dataset' }),
  predictedImageCount: Type.Integer({ description: 'of those, the images with predictions of the model' }),
  ap: { ...Figure, description: 'COCO AP: mean over IoU .50:.05:.95, 101 recall points and classes (area all, 100 detections)' },
  ap50: Figure,
  ap75: Figure,
  ar100: Figure,
  classes: Type.Array(
    Type.Object({ classId: Type.Integer(), title: Type.String(), truths: Type.Integer(), detections: Type.Integer(), ap: Figure, ap50: Figure, ap75: Figure }),
  ),
  curve: Type.Object({
    recall: Type.Array(Type.Number(), { description: 'the 101 recall points 0, 0.01 … 1' }),
    precision50: Type.Array(Figure, { description: 'interpolated precision at each recall point, IoU .5, mean over classes' }),
    precision75: Type.Array(Figure),
    precision: Type.Array(Figure, { description: 'the same, mean over the ten IoU thresholds too' }),
  }),
  worstImages: Type.Array(
    Type.Object({
      imageId: Type.Integer(),
      name: Type.String(),
      datasetId: Type.Integer(),
      truePositives: Type.Integer(),
      falsePositives: Type.Integer(),
      falseNegatives: Type.Integer(),
    }),
    { description: 'at IoU .5, the images with the most false positives and negatives first (at most 100)' },
  ),
});

/** The largest body of a predictions import. */
export const PREDICTION_IMPORT_BYTES = 64 * 1024 * 1024;
const MAX_IMPORT_ITEMS = 1_000_000;

export const PredictionImportBody = Type.Object(
  {
    model: ModelName,
    format: Type.Union([Type.Literal('coco'), Type.Literal('yolo'), Type.Literal('supervisely')]),
    datasetId: Type.Optional({ ...Id, description: 'match images of this dataset only' }),
    results: Type.Optional(Type.Array(Type.Unknown(), { maxItems: MAX_IMPORT_ITEMS, description: 'coco: the results list [{image_id, category_id, bbox | segmentation, score}]' })),
    images: Type.Optional(
      Type.Array(Type.Object({ id: Type.Union([Type.Integer(), Type.String()]), file_name: Type.String() }), {
        maxItems: MAX_IMPORT_ITEMS,
        description: 'coco: the ground truth’s images; image_id is matched by file name. Without it, image_id is an Annostore image id',
      }),
    ),
    categories: Type.Optional(
      Type.Array(Type.Object({ id: Type.Integer(), name: Type.String() }), {
        maxItems: 100_000,
        description: 'coco: the ground truth’s categories; category_id is matched to a class by name. Without it, category_id is a class id',
      }),
    ),
    names: Type.Optional(Type.Array(Type.String(), { maxItems: 100_000, description: 'yolo: class names by index (data.yaml `names`)' })),
    labels: Type.Optional(Type.Record(Type.String(), Type.String(), { maxProperties: MAX_IMPORT_ITEMS, description: 'yolo: label files by path; each is matched by its stem' })),
    annotations: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { maxProperties: MAX_IMPORT_ITEMS, description: 'supervisely: annotations by image name' })),
  },
  { additionalProperties: false },
);

export const PredictionImportResult = Type.Object({
  model: Type.String(),
  images: Type.Integer({ description: 'images whose predictions of the model were replaced' }),
  objects: Type.Integer(),
  warnings: Type.Array(Type.Object({ at: Type.String(), message: Type.String() }), { description: 'the first 100 things skipped' }),
  moreWarnings: Type.Integer(),
});
