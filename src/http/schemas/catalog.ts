// The v2 resources of a project's catalogue (projects, datasets, classes, tags), their bodies and
// queries. Titles follow v1's rules (schemas/common.ts); sizes are integers, not v1's strings.
import { Type } from 'typebox';
import type { Limits } from '../../config.ts';
import { TAG_VALUE_TYPES } from '../../formats/canonical.ts';
import { MAX_TAG_VALUES, MAX_TAG_VALUE_LENGTH } from '../../services/tag-value-rules.ts';
import { Id, TagScope, Timestamp, Title } from './common.ts';
import { Hotkey } from './requests.ts';
import { ClassShape } from './resources.ts';
import { ListQuery } from './v2.ts';

const Bytes = Type.Integer({ minimum: 0, description: 'bytes' });
const Color = Type.String({ pattern: '^#[0-9A-Fa-f]{6}$', description: '#RRGGBB' });
const TagValueType = Type.Enum([...TAG_VALUE_TYPES]);
const CountsFlag = Type.Boolean({ default: false, description: 'add what each item holds (a costlier answer)' });

export const ProjectV2 = Type.Object(
  {
    id: Type.Integer(),
    title: Type.String(),
    description: Type.String(),
    size: Bytes,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'ProjectV2' },
);

const ClassSummary = Type.Object({ id: Type.Integer(), title: Type.String(), shape: ClassShape, color: Color });

export const ProjectListItem = Type.Object({
  ...ProjectV2.properties,
  counts: Type.Optional(Type.Object({ datasets: Type.Integer(), images: Type.Integer(), objects: Type.Integer() })),
  classes: Type.Optional(Type.Array(ClassSummary)),
});

export const DatasetV2 = Type.Object(
  {
    id: Type.Integer(),
    projectId: Type.Integer(),
    title: Type.String(),
    size: Bytes,
    managersOnly: Type.Boolean({ description: 'only the project’s managers see the dataset and its images: where ground truth lives (docs/jobs.md, Quality)' }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'DatasetV2' },
);

export const DatasetListItem = Type.Object({
  ...DatasetV2.properties,
  counts: Type.Optional(Type.Object({ images: Type.Integer(), objects: Type.Integer() })),
});

export const ClassV2 = Type.Object(
  {
    id: Type.Integer(),
    projectId: Type.Integer(),
    title: Type.String(),
    shape: ClassShape,
    color: Color,
    createdAt: Timestamp,
  },
  { $id: 'ClassV2' },
);

export const ClassUsage = Type.Object(
  {
    classId: Type.Integer(),
    objects: Type.Integer({ minimum: 0, description: 'objects of the class stored over the project' }),
    images: Type.Integer({ minimum: 0, description: 'images holding at least one of them' }),
  },
  { $id: 'ClassUsage' },
);

export const TagV2 = Type.Object(
  {
    id: Type.Integer(),
    projectId: Type.Integer(),
    scope: TagScope,
    title: Type.String(),
    hotkey: Type.String(),
    valueType: TagValueType,
    values: Type.Optional(
      Type.Array(Type.String(), { description: 'a `oneof_string` tag’s possible values, as Supervisely’s meta.json lists them; absent for the other value types' }),
    ),
    createdBy: Type.Union([Type.Integer(), Type.Null()]),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'TagV2' },
);

// Parameters (a resource's own id is IdParams of schemas/v2.ts)
export const ProjectIdParams = Type.Object({ projectId: Id });

// Bodies
export const newProjectBody = (limits: Pick<Limits, 'descriptionLength'>) =>
  Type.Object({ title: Title, description: Type.Optional(Type.String({ maxLength: limits.descriptionLength })) }, { additionalProperties: false });
export const projectChangeBody = (limits: Pick<Limits, 'descriptionLength'>) =>
  Type.Object(
    { title: Type.Optional(Title), description: Type.Optional(Type.String({ maxLength: limits.descriptionLength })) },
    { additionalProperties: false, minProperties: 1 },
  );
const ManagersOnly = Type.Boolean({ description: 'only the project’s managers see the dataset and its images (docs/jobs.md, Quality); false by default' });
export const DatasetBody = Type.Object({ title: Title, managersOnly: Type.Optional(ManagersOnly) }, { additionalProperties: false });
export const DatasetChangeBody = Type.Object({ title: Type.Optional(Title), managersOnly: Type.Optional(ManagersOnly) }, { additionalProperties: false, minProperties: 1 });
export const NewClassBody = Type.Object(
  {
    title: Title,
    shape: ClassShape,
    color: Type.Optional(Type.String({ ...Color, description: '#RRGGBB; without it, the next colour of a palette for many classes, clearly apart from the project’s others' })),
  },
  { additionalProperties: false },
);
export const ClassChangeBody = Type.Object({ title: Type.Optional(Title), color: Type.Optional(Color) }, { additionalProperties: false, minProperties: 1 });
const PossibleValues = Type.Array(Type.String({ minLength: 1, maxLength: MAX_TAG_VALUE_LENGTH }), {
  maxItems: MAX_TAG_VALUES,
  description: 'the possible values of a `oneof_string` tag (required for it, refused for the other types), distinct',
});
export const NewTagBody = Type.Object(
  { title: Title, scope: TagScope, hotkey: Type.Optional(Hotkey), valueType: Type.Optional(TagValueType), values: Type.Optional(PossibleValues) },
  { additionalProperties: false },
);
export const TagChangeBody = Type.Object(
  {
    title: Type.Optional(Title),
    hotkey: Type.Optional(Hotkey),
    valueType: Type.Optional(Type.Enum([...TAG_VALUE_TYPES], { description: 'every value the tag carries must fit the new type (else 409)' })),
    values: Type.Optional(PossibleValues),
  },
  { additionalProperties: false, minProperties: 1 },
);
export const TagUsageV2 = Type.Object(
  {
    images: Type.Integer({ description: 'images that carry the tag (an object tag: images with an object that does)' }),
    objects: Type.Optional(Type.Integer({ description: 'objects that carry an object tag' })),
  },
  { $id: 'TagUsageV2' },
);

// Queries
export const ProjectsQuery = Type.Object({
  ...ListQuery,
  title: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'only projects whose title starts with this' })),
  counts: Type.Optional(CountsFlag),
});
export const DatasetsQuery = Type.Object({
  ...ListQuery,
  projectId: Type.Optional(Id),
  counts: Type.Optional(CountsFlag),
});
export const ClassesQuery = Type.Object(ListQuery);
export const TagsQuery = Type.Object({ ...ListQuery, scope: Type.Optional(TagScope) });
export const ClassDeleteQuery = Type.Object({
  cascade: Type.Optional(Type.Boolean({ default: false, description: 'remove the objects of the class too; without it a used class is a 409' })),
});
