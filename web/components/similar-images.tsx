// The images of the team that look like the one shown (near-duplicates by perceptual hash), nearest
// first: a thumbnail, its name and dataset, and how far it is (or that it is the very same bytes).
import { useEffect, useState } from 'preact/hooks';
import { type SimilarImages as Similar, similarImages, thumbnailUrl } from '../api.ts';
import { Link } from './link.tsx';

export function SimilarImages(props: { imageId: number }) {
  const [answer, setAnswer] = useState<Similar | null>(null);
  const [error, setError] = useState('');

  useEffect(() => {
    let live = true;
    setAnswer(null);
    setError('');
    similarImages(props.imageId).then((found) => live && setAnswer(found), (failure: Error) => live && setError(failure.message));
    return () => void (live = false);
  }, [props.imageId]);

  return (
    <section aria-labelledby="similar-title">
      <h2 id="similar-title">Similar images{answer && answer.items.length > 0 ? ` (${answer.items.length})` : ''}</h2>
      {error && <p class="error">{error}</p>}
      {!answer && !error && <p class="quiet-text">Looking…</p>}
      {answer && !answer.hashed && <p class="quiet-text">Not compared yet: its hashes are made with its thumbnail.</p>}
      {answer?.hashed && answer.items.length === 0 && <p class="quiet-text">None in the team.</p>}
      {answer && answer.items.length > 0 && (
        <ul class="similar-list">
          {answer.items.map((item) => (
            <li key={item.id}>
              <Link href={`/images/${item.id}`} title={item.name}>
                <img src={thumbnailUrl(item.id)} alt="" loading="lazy" width={48} height={48} />
                <span class="similar-text">
                  <span class="similar-name">{item.name}</span>
                  <span class="quiet-text">
                    {item.datasetTitle} · {item.sameBytes ? 'the same file' : `pHash ${item.phashDistance} · dHash ${item.dhashDistance}`}
                  </span>
                </span>
              </Link>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
