import { questionText } from '../question';

describe('questionText', () => {
  it('takes the question out of the stop message', () => {
    expect(questionText('The model asks: Which folder?')).toBe('Which folder?');
  });

  it('keeps a message in another form as it is', () => {
    expect(questionText('Which folder?')).toBe('Which folder?');
  });
});
