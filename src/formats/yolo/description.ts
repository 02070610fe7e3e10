// The description a YOLO import reads among the dataset's files: its class names and splits.
import { type YoloConfig, readDataYaml, readNamesFile, readObjData } from './config.ts';
import { findDescriptions } from './layout.ts';

const baseName = (p: string) => p.slice(p.lastIndexOf('/') + 1);

/**
 * The dataset's description among the paths: a data YAML (`data.yaml` before any other), else a
 * Darknet obj.data with the names of the names file it points to, else a names file alone; null when
 * there is none. `text` reads a file by its path. Throws YoloFormatError when the description chosen
 * cannot be read.
 */
export async function readDescription(paths: readonly string[], text: (path: string) => Promise<string>): Promise<YoloConfig | null> {
  const descriptions = findDescriptions(paths);
  let config: YoloConfig | null = null;
  const yamls = [...descriptions.yaml].sort((a, b) => Number(baseName(b) === 'data.yaml') - Number(baseName(a) === 'data.yaml'));
  if (yamls.length > 0) config = readDataYaml(await text(yamls[0]!), yamls[0]!);
  else if (descriptions.objData.length > 0) config = readObjData(await text(descriptions.objData[0]!), descriptions.objData[0]!);
  if (config && config.names.length === 0) {
    const wanted = config.namesPath;
    const namesPath =
      descriptions.names.find((p) => wanted?.endsWith(p)) ?? descriptions.names.find((p) => wanted && baseName(p) === baseName(wanted)) ?? descriptions.names[0];
    if (namesPath) config.names = readNamesFile(await text(namesPath));
  }
  if (!config && descriptions.names.length > 0) config = { path: descriptions.names[0]!, names: readNamesFile(await text(descriptions.names[0]!)), splits: [] };
  return config;
}
