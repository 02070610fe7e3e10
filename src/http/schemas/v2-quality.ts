// Quality (docs/jobs.md "Quality"): the ground-truth requests and list, and the quality report.
import { Type } from 'typebox';
import { MAX_GROUND_TRUTH_PER_REQUEST } from '../../services/quality.service.ts';
import { Id, Timestamp } from './common.ts';
import { ListQuery } from './v2.ts';

export const GroundTruthBody = Type.Object(
  { imageIds: Type.Array(Id, { minItems: 1, maxItems: MAX_GROUND_TRUTH_PER_REQUEST, description: 'images of the project' }) },
  { additionalProperties: false },
);

export const GroundTruthQuery = Type.Object({ ...ListQuery }, { additionalProperties: false });

export const GroundTruthImage = Type.Object({
  imageId: Id,
  name: Type.String(),
  datasetId: Id,
  objects: Type.Integer({ minimum: 0, description: 'the objects frozen as the reference' }),
  createdAt: Timestamp,
});

const Ratio = (description: string) => Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], { description });

const FigureMembers = {
  truths: Type.Integer({ minimum: 0, description: 'objects of the ground truth' }),
  answers: Type.Integer({ minimum: 0, description: 'objects the annotator drew' }),
  matched: Type.Integer({ minimum: 0, description: 'pairs matched at IoU ≥ 0.5' }),
  precision: Ratio('matched / answers; null with no answer'),
  recall: Ratio('matched / truths; null with no truth'),
  meanIou: Ratio('the mean IoU of the matched pairs; null with none'),
};

const ClassComparison = Type.Object({
  classTitle: Type.String(),
  iouType: Type.Union([Type.Literal('bbox'), Type.Literal('segm')], { description: 'bbox when every object of the class on the image is a rectangle, else segm (masks)' }),
  matches: Type.Array(Type.Object({ truth: Type.Integer({ minimum: 0 }), answer: Type.Integer({ minimum: 0 }), iou: Type.Number() }), {
    description: 'matched pairs: the places of the truth and of the annotator’s object among the class’s objects of each, in stored order',
  }),
  misses: Type.Array(Type.Integer({ minimum: 0 }), { description: 'truths left unmatched (their places)' }),
  extras: Type.Array(Type.Integer({ minimum: 0 }), { description: 'the annotator’s objects left unmatched (their places)' }),
  truths: Type.Integer({ minimum: 0 }),
  answers: Type.Integer({ minimum: 0 }),
});

const HoneypotResult = Type.Object({
  imageId: Id,
  jobId: Type.Union([Id, Type.Null()], { description: 'null once the job is deleted' }),
  sourceImageId: Id,
  name: Type.String(),
  evaluatedAt: Timestamp,
  ...FigureMembers,
  classes: Type.Array(ClassComparison),
});

export const QualityReport = Type.Object({
  projectId: Id,
  matchIou: Type.Number({ description: 'objects match at this IoU or above' }),
  annotators: Type.Array(
    Type.Object({
      userId: Id,
      login: Type.String(),
      honeypots: Type.Integer({ minimum: 0, description: 'honeypots submitted' }),
      ...FigureMembers,
      classes: Type.Array(Type.Object({ classTitle: Type.String(), honeypots: Type.Integer({ minimum: 0, description: 'honeypots where the class has a truth or an answer' }), ...FigureMembers })),
      items: Type.Array(HoneypotResult, { description: 'each honeypot the annotator submitted, by image id' }),
    }),
  ),
});
