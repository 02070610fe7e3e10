// GET, PUT and DELETE /v2/images/:id/predictions: models' predictions beside the annotation;
// GET /v2/projects/:projectId/evaluation: a model's predictions measured against the annotations.
import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Context } from '../../context.ts';
import { evaluateModel } from '../../services/evaluation.service.ts';
import { importPredictions } from '../../services/prediction-import.service.ts';
import { getPredictions, listProjectModels, putPredictions, removePredictions } from '../../services/predictions.service.ts';
import {
  Evaluation,
  EvaluationParams,
  EvaluationQuery,
  ImagePredictions,
  PREDICTION_IMPORT_BYTES,
  PredictionImportBody,
  PredictionImportResult, ProjectModels, ModelPredictions, PredictionsBody, PredictionsQuery } from '../schemas/predictions.ts';
import { IdParams, Problem, problemResponses } from '../schemas/v2.ts';
import { needs } from '../plugins/project-access.ts';

export const predictionRoutes =
  (ctx: Context): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/images/:id/predictions',
      {
        config: { access: needs('viewer', ['image', 'params.id']) },
        schema: {
          tags: ['predictions'],
          summary: 'The predictions of models for an image, each object with its score; one model’s with `model`',
          params: IdParams,
          querystring: PredictionsQuery,
          response: { 200: ImagePredictions, ...problemResponses },
        },
      },
      async (request) => getPredictions(ctx.db.kysely, request.principal.teamId, request.params.id, request.query.model),
    );

    app.put(
      '/images/:id/predictions',
      {
        config: { access: needs('manager', ['image', 'params.id']) },
        bodyLimit: ctx.config.limits.annotationBodyBytes,
        schema: {
          tags: ['predictions'],
          summary: 'Replace one model’s predictions for an image; the annotation is not touched',
          params: IdParams,
          body: PredictionsBody,
          response: { 200: ModelPredictions, ...problemResponses, 413: Problem },
        },
      },
      async (request) => putPredictions(ctx.db.kysely, request.principal.teamId, request.params.id, request.body),
    );

    app.delete(
      '/images/:id/predictions',
      {
        config: { access: needs('manager', ['image', 'params.id']) },
        schema: {
          tags: ['predictions'],
          summary: 'Delete one model’s predictions for an image (`model`), or every model’s',
          params: IdParams,
          querystring: PredictionsQuery,
          response: { 204: Type.Null(), ...problemResponses },
        },
      },
      async (request, reply) => {
        await removePredictions(ctx.db.kysely, request.principal.teamId, request.params.id, request.query.model);
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/projects/:projectId/predictions/models',
      {
        config: { access: needs('viewer', ['project', 'params.projectId']) },
        schema: {
          tags: ['predictions'],
          summary: 'The models with predictions in the project, with the images and objects of each',
          params: EvaluationParams,
          response: { 200: ProjectModels, ...problemResponses },
        },
      },
      async (request) => ({ items: await listProjectModels(ctx.db.kysely, request.principal, request.params.projectId) }),
    );

    app.get(
      '/projects/:projectId/evaluation',
      {
        config: { access: needs('viewer', ['project', 'params.projectId'], ['dataset', 'query.datasetId']) },
        schema: {
          tags: ['predictions'],
          summary: 'COCO AP of a model’s predictions against the annotations of the project (or a dataset), per class, with the precision–recall curve',
          params: EvaluationParams,
          querystring: EvaluationQuery,
          response: { 200: Evaluation, ...problemResponses },
        },
      },
      async (request) =>
        evaluateModel(ctx.db.kysely, request.principal, {
          projectId: request.params.projectId,
          model: request.query.model,
          iouType: request.query.iouType ?? 'bbox',
          ...(request.query.datasetId !== undefined ? { datasetId: request.query.datasetId } : {}),
        }),
    );

    app.post(
      '/projects/:projectId/predictions',
      {
        config: { access: needs('manager', ['project', 'params.projectId']) },
        bodyLimit: PREDICTION_IMPORT_BYTES,
        schema: {
          tags: ['predictions'],
          summary: 'Import a model’s predictions onto the project’s images: a COCO results list, YOLO labels with a confidence, Supervisely objects with a score',
          params: EvaluationParams,
          body: PredictionImportBody,
          response: { 200: PredictionImportResult, ...problemResponses, 413: Problem },
        },
      },
      async (request) => importPredictions(ctx.db.kysely, request.principal.teamId, request.params.projectId, request.body),
    );
  };
