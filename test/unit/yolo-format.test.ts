// The YOLO reader against the peer fixtures: data YAMLs of several styles, Darknet files, labels.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { detect, planYolo, readDataYaml, readLabelFile, readNamesFile, readObjData } from '../../src/formats/yolo/index.ts';
import { PEER } from '../helpers/peer-fixtures.ts';

const text = (fixture: string, rel: string) => readFileSync(path.join(PEER, fixture, rel), 'utf8');
const files = (fixture: string) =>
  (readdirSync(path.join(PEER, fixture), { recursive: true }) as string[]).filter((p) => statSync(path.join(PEER, fixture, p)).isFile()).sort();
const plan = (fixture: string, config: ReturnType<typeof readDataYaml> | null) => {
  const all = files(fixture);
  return planYolo(all.filter((p) => p.endsWith('.jpg')), all.filter((p) => p.endsWith('.txt')), config, (p) => text(fixture, p));
};
const summary = (datasets: ReturnType<typeof plan>['datasets']) =>
  datasets.map((d) => [d.name, d.images.map((i) => [i.imagePath, i.labelPath])]);

describe('YOLO reader', () => {
  test('labelformat detection YAML: not named data.yaml, dict names, a folder with a space', () => {
    const fixture = 'labelformat/yolo/object_detection';
    const config = readDataYaml(text(fixture, 'example.yaml'), 'example.yaml');
    assert.equal(config.names.length, 32);
    assert.equal(config.names[1], 'bicycle with space');
    assert.deepEqual(config.splits, [{ name: 'train', entries: ['images/a-difficult subfolder'] }]);
    const { datasets, warnings } = plan(fixture, config);
    assert.deepEqual(warnings, []);
    assert.deepEqual(summary(datasets), [['train', [
      ['images/a-difficult subfolder/a-weird Filename.asdf.jpg', 'labels/a-difficult subfolder/a-weird Filename.asdf.txt'],
      ['images/a-difficult subfolder/aNother-weird__ filename.with.many.characters.jpg', 'labels/a-difficult subfolder/aNother-weird__ filename.with.many.characters.txt'],
    ]]]);
  });

  test('roboflow data.yaml: ../ paths and a val folder that is not where the YAML says', () => {
    const fixture = 'datumaro/yolo/roboflow_yolo';
    const config = readDataYaml(text(fixture, 'data.yaml'), 'data.yaml');
    assert.deepEqual(config.names, ['label_0', 'label_1']);
    assert.deepEqual(config.splits.map((s) => [s.name, s.entries]), [['train', ['train/images']], ['val', ['valid/images']]]);
    assert.deepEqual(plan(fixture, config).datasets.map((d) => [d.name, d.images.length]), [['train', 2], ['val', 1]]);
  });

  test('a val that names the train folders adds no second split, so no image is imported twice', () => {
    const yaml = 'path: .\ntrain: [images/a, images/b]\nval: [images/a, images/b]\ntest: images/c\nnames: {0: x}\n';
    assert.deepEqual(readDataYaml(yaml, 'data.yaml').splits, [
      { name: 'train', entries: ['images/a', 'images/b'] },
      { name: 'test', entries: ['images/c'] },
    ]);
    const other = readDataYaml('train: images/a\nval: images/b\nnames: [x]\n', 'data.yaml');
    assert.deepEqual(other.splits.map((s) => s.name), ['train', 'val']);
  });

  test('Darknet obj.data with data/ prefixes, obj.names, train.txt', () => {
    const fixture = 'datumaro/yolo/strict';
    const config = readObjData(text(fixture, 'obj.data'), 'obj.data');
    assert.equal(config.namesPath, 'data/obj.names');
    config.names = readNamesFile(text(fixture, 'obj.names'));
    assert.equal(config.names.length, 10);
    const { datasets, warnings } = plan(fixture, config);
    assert.deepEqual(warnings, []);
    assert.deepEqual(summary(datasets), [['train', [['obj_train_data/1.jpg', 'obj_train_data/1.txt']]]]);
  });

  test('no description but labels/: splits from the folders, the same name in two splits', () => {
    const fixture = 'datumaro/yolo/labels';
    assert.equal(detect(files(fixture)), true);
    assert.deepEqual(summary(plan(fixture, null).datasets), [
      ['train', [['images/train/1.jpg', 'labels/train/1.txt']]],
      ['val', [['images/val/1.jpg', 'labels/val/1.txt']]],
    ]);
  });

  test('labels: boxes and polygons in pixels; bad lines are warned with their line', () => {
    const names = ['a', 'b', 'c'];
    const { objects, warnings } = readLabelFile('1 0.5 0.5 0.2 0.4\n\n2 0 0 1 0 1 1\n7 0.5 0.5 0.1 0.1\n0 x 0.5 0.1 0.1\n0 0.5 0.5\n', 'l.txt', names, 100, 50);
    assert.deepEqual(objects.map((o) => [o.classTitle, o.shape, o.points.exterior]), [
      ['b', 'rectangle', [[40, 15], [60, 35]]],
      ['c', 'polygon', [[0, 0], [100, 0], [100, 50]]],
    ]);
    assert.deepEqual(warnings.map((w) => [w.path, w.line]), [['l.txt', 4], ['l.txt', 5], ['l.txt', 6]]);
    assert.match(warnings[0]!.message, /class index 7 is not among the 3 class names/);
  });

  test('the segmentation fixture: dict names and normalised polygons', () => {
    const fixture = 'labelformat/yolo/instance_segmentation';
    const config = readDataYaml(text(fixture, 'dataset.yaml'), 'dataset.yaml');
    assert.deepEqual(config.names, ['kite', 'person', 'elephant', 'sports ball']);
    const { objects, warnings } = readLabelFile(text(fixture, 'labels/000000109005.txt'), 'x.txt', config.names, 640, 428);
    assert.deepEqual(warnings, []);
    assert.ok(objects.length > 0 && objects.every((o) => o.shape === 'polygon' && o.points.exterior.length >= 3));
    assert.throws(() => readDataYaml('names: [a\n', 'bad.yaml'), /bad\.yaml/);
  });
});
