// Schemas of API v2's models and architectures (the resources are shown as v1 shows them).
import { Type } from 'typebox';
import { Title } from './common.ts';

export const ArchitectureBody = Type.Object(
  {
    title: Title,
    description: Type.Optional(Type.String({ maxLength: 10_000 })),
    categoryId: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_147_483_647 })),
    trainImage: Type.Optional(Type.String({ maxLength: 1024 })),
    inferenceImage: Type.Optional(Type.String({ maxLength: 1024 })),
    deployImage: Type.Optional(Type.String({ maxLength: 1024 })),
  },
  { additionalProperties: false },
);

export const ModelBody = Type.Object(
  { title: Title, architectureId: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) },
  { additionalProperties: false },
);

export const ModelChange = Type.Object({ title: Title }, { additionalProperties: false });

export const WeightsAnswer = Type.Object({ size: Type.Integer({ minimum: 0, description: 'bytes' }) });
